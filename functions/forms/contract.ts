import { defineArea, HTML_PAGE, KEYED, PUBLIC, SIGNED_LINK } from '#shared/http/contract.ts';
import { createFormBody, formListItemSchema, formSchema, listFormsQuery, listSubmissionsQuery, publicFormSchema, submissionBody, submissionRecordSchema, submitReceiptReply, updateFormBody } from '#shared/schemas/forms.ts';
import { dataReply, deletedReply, listReply } from '#shared/schemas/replies.ts';

/** Public form endpoints: anyone may call them; only published forms answer. */
const PUBLIC_FORM = { ...PUBLIC, throttle: 'public' } as const;

/**
 * A submission is stored as one item (DynamoDB's limit is 400 KB): this
 * leaves room for the item's own attributes around the submitted values.
 */
const FORM_SUBMIT_MAX_BODY_BYTES = 300 * 1024;

const form = { id: 'form' } as const;
const confirmation = { token: 'confirmationToken' } as const;

export const forms = defineArea('forms', {
  create: {
    // Query: the account's domains, when a form that sends mail has no `from` (the default sender).
    method: 'POST', path: '/api/forms', ...KEYED, table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem'],
    request: { body: createFormBody },
    responses: { 201: dataReply(formSchema) },
    errors: ['AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED', 'CONFLICT'],
    summary: 'Create a form',
    description: 'A published form is served at `/f/{slug}` and takes submissions; with an `audienceId` its email field adds the submitter to that audience (`settings.doubleOptIn` asks them to confirm first).',
    example: { title: 'Newsletter signup', fields: [{ id: 'email', type: 'email', label: 'Email', required: true }], published: true },
  },
  list: {
    method: 'GET', path: '/api/forms', ...KEYED, table: ['Query', 'GetItem'],
    request: { query: listFormsQuery },
    responses: { 200: listReply('forms', formListItemSchema) },
    summary: 'List forms with their analytics',
    description: 'One page of the account\'s forms, each with its views, submissions and conversion rate.',
  },
  getPublic: {
    method: 'GET', path: '/api/forms/public/{slug}', ...PUBLIC_FORM, cors: true, table: ['GetItem', 'UpdateItem'], params: { slug: 'formSlug' },
    request: {},
    responses: { 200: dataReply(publicFormSchema) },
    errors: ['FORM_NOT_FOUND'],
    summary: 'Get a published form for rendering',
    description: 'What a page needs to render the form, without its settings; counts a view. An unpublished form is answered as unknown.',
  },
  get: {
    method: 'GET', path: '/api/forms/{id}', ...KEYED, table: ['GetItem'], params: form,
    request: {},
    responses: { 200: dataReply(formSchema) },
    errors: ['FORM_NOT_FOUND'],
    summary: 'Get a form with its settings',
    description: 'The whole form, published or not.',
  },
  update: {
    method: 'PATCH', path: '/api/forms/{id}', ...KEYED, table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], params: form,
    request: { body: updateFormBody },
    responses: { 200: dataReply(formSchema) },
    errors: ['FORM_NOT_FOUND', 'AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED', 'CONFLICT'],
    summary: 'Change a form',
    description: 'Only the fields given change; `published` publishes or withdraws the form, and a new `slug` frees the old one.',
    example: { title: 'Spring newsletter signup', published: true },
  },
  delete: {
    method: 'DELETE', path: '/api/forms/{id}', ...KEYED, table: ['GetItem', 'DeleteItem', 'UpdateItem', 'Query', 'BatchWriteItem'], params: form,
    request: {},
    responses: { 200: deletedReply },
    errors: ['FORM_NOT_FOUND', 'CONFLICT'],
    summary: 'Delete a form with its submissions',
    description: 'The form, its slug and every stored submission are removed; contacts it added stay.',
  },
  submissions: {
    method: 'GET', path: '/api/forms/{id}/submissions', ...KEYED, table: ['GetItem', 'Query'], params: form,
    request: { query: listSubmissionsQuery },
    responses: { 200: listReply('submissions', submissionRecordSchema) },
    errors: ['FORM_NOT_FOUND'],
    summary: 'List the submissions of a form',
    description: 'One page of stored submissions, newest first; `startDate` and `endDate` filter on `createdAt`, inclusive.',
  },
  submit: {
    method: 'POST', path: '/api/forms/{id}/submit', ...PUBLIC_FORM, cors: true, params: form,
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'],
    ses: ['SendEmail'], secrets: ['linkSigning'], queues: ['retry'], attachments: ['queue'], maxBodyBytes: FORM_SUBMIT_MAX_BODY_BYTES, bodyFormats: ['json', 'form'],
    request: { body: submissionBody },
    responses: { 200: submitReceiptReply },
    errors: ['FORM_NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
    pageStatuses: [200, 404, 422, 429],
    summary: 'Submit a published form (by id or slug)',
    description: 'A browser posting the HTML form (`Accept: text/html`) gets the form page back, with the errors marked.',
    example: { email: 'ada@example.com' },
  },
  page: {
    method: 'GET', path: '/f/{slug}', ...PUBLIC_FORM, table: ['GetItem', 'UpdateItem'], params: { slug: 'formSlug' },
    request: {},
    responses: { 200: HTML_PAGE },
    pageStatuses: [404],
    summary: 'Hosted page of a published form',
    description: 'The form as a page that works without script; counts a view.',
  },
  // The double opt-in link: its GET only shows a button (mail scanners open links), whose POST confirms.
  confirmPage: {
    method: 'GET', path: '/confirm/{token}', ...SIGNED_LINK, table: [], params: confirmation,
    request: {},
    responses: { 200: HTML_PAGE },
    pageStatuses: [400],
    summary: 'Double opt-in link: a page with a confirmation button',
    description: 'Changes nothing (mail scanners open links); its button posts to the same address.',
  },
  confirm: {
    method: 'POST', path: '/confirm/{token}', ...SIGNED_LINK, table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'], params: confirmation,
    request: {},
    responses: { 200: HTML_PAGE },
    pageStatuses: [400, 409],
    summary: 'Confirm a double opt-in subscription',
    description: 'The confirmation page\'s button: moves the pending contact of the audience the signed link names to `subscribed`. The body is ignored.',
  },
});
