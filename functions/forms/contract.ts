import { defineArea, HTML_PAGE, PUBLIC, resource, signedLink } from '#shared/platform/http/contract.ts';
import {
  createFormBody,
  formListItemSchema,
  formSchema,
  listFormsQuery,
  listSubmissionsQuery,
  publicFormSchema,
  submissionBody,
  submissionRecordSchema,
  submitReceiptReply,
  updateFormBody,
} from '#shared/forms/schema.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';

/** Public form endpoints: anyone may call them; only published forms answer. */
const PUBLIC_FORM = { ...PUBLIC, throttle: 'public' } as const;

/**
 * A submission is stored as one item (DynamoDB's limit is 400 KB): this
 * leaves room for the item's own attributes around the submitted values.
 */
const FORM_SUBMIT_MAX_BODY_BYTES = 300 * 1024;

const form = resource('/api/forms', 'form', 'FORM_NOT_FOUND', { schema: formSchema, writeErrors: ['CONFLICT'] });
const confirmation = signedLink('/confirm/{token}', 'confirmationToken');

export const forms = defineArea('forms', {
  // Query: the account's domains, when a form that sends mail has no `from` (the default sender).
  create: form.create({
    table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem'],
    body: createFormBody,
    errors: ['AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED'],
    summary: 'Create a form',
    description:
      'A published form is served at `/f/{slug}` and takes submissions; with an `audienceId` its email field adds the submitter to that audience (`settings.doubleOptIn` asks them to confirm first).',
    example: { title: 'Newsletter signup', fields: [{ id: 'email', type: 'email', label: 'Email', required: true }], published: true },
  }),
  list: form.list({
    table: ['Query', 'GetItem'],
    query: listFormsQuery,
    name: 'forms',
    item: formListItemSchema,
    summary: 'List forms with their analytics',
    description: "One page of the account's forms, each with its views, submissions and conversion rate.",
  }),
  getPublic: {
    method: 'GET',
    path: '/api/forms/public/{slug}',
    ...PUBLIC_FORM,
    cors: true,
    table: ['GetItem', 'UpdateItem'],
    params: { slug: 'formSlug' },
    request: {},
    responses: { 200: dataReply(publicFormSchema) },
    errors: ['FORM_NOT_FOUND'],
    summary: 'Get a published form for rendering',
    description: 'What a page needs to render the form, without its settings; counts a view. An unpublished form is answered as unknown.',
  },
  get: form.get({
    table: ['GetItem'],
    summary: 'Get a form with its settings',
    description: 'The whole form, published or not.',
  }),
  update: form.update({
    table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    body: updateFormBody,
    errors: ['AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED'],
    summary: 'Change a form',
    description: 'Only the fields given change; `published` publishes or withdraws the form, and a new `slug` frees the old one.',
    example: { title: 'Spring newsletter signup', published: true },
  }),
  delete: form.delete({
    table: ['GetItem', 'DeleteItem', 'UpdateItem', 'Query', 'BatchWriteItem'],
    summary: 'Delete a form with its submissions',
    description: 'The form, its slug and every stored submission are removed; contacts it added stay.',
  }),
  submissions: form.list({
    sub: 'submissions',
    table: ['GetItem', 'Query'],
    query: listSubmissionsQuery,
    name: 'submissions',
    item: submissionRecordSchema,
    summary: 'List the submissions of a form',
    description: 'One page of stored submissions, newest first; `startDate` and `endDate` filter on `createdAt`, inclusive.',
  }),
  submit: {
    method: 'POST',
    path: '/api/forms/{id}/submit',
    ...PUBLIC_FORM,
    cors: true,
    params: { id: 'form' },
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'],
    ses: ['SendEmail'],
    secrets: ['linkSigning'],
    queues: ['retry'],
    attachments: ['queue', 'storeContent'],
    maxBodyBytes: FORM_SUBMIT_MAX_BODY_BYTES,
    bodyFormats: ['json', 'form'],
    request: { body: submissionBody },
    responses: { 200: submitReceiptReply },
    errors: ['FORM_NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
    pageStatuses: [200, 404, 422, 429],
    summary: 'Submit a published form (by id or slug)',
    description: 'A browser posting the HTML form (`Accept: text/html`) gets the form page back, with the errors marked.',
    example: { email: 'ada@example.com' },
  },
  page: {
    method: 'GET',
    path: '/f/{slug}',
    ...PUBLIC_FORM,
    table: ['GetItem', 'UpdateItem'],
    params: { slug: 'formSlug' },
    request: {},
    responses: { 200: HTML_PAGE },
    pageStatuses: [404],
    summary: 'Hosted page of a published form',
    description: 'The form as a page that works without script; counts a view.',
  },
  // The double opt-in link: its GET only shows a button (mail scanners open links), whose POST confirms.
  confirmPage: confirmation.page({
    table: [],
    pageStatuses: [400],
    summary: 'Double opt-in link: a page with a confirmation button',
    description: 'Changes nothing (mail scanners open links); its button posts to the same address.',
  }),
  confirm: confirmation.post({
    table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'],
    request: {},
    pageStatuses: [400, 409],
    summary: 'Confirm a double opt-in subscription',
    description: "The confirmation page's button: moves the pending contact of the audience the signed link names to `subscribed`. The body is ignored.",
  }),
});
