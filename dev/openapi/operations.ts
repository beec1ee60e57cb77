/**
 * What the route table does not say about each handler: its summary, its
 * replies and the error codes particular to it. Keyed by every handler of the
 * route table, so a route added without its description fails the type-check.
 * Request schemas are not here: the document takes them from the handlers.
 */
import type * as v from 'valibot';
import type { ErrorCode } from '#shared/errors.ts';
import type { HandlerName } from '#shared/http/routes.ts';
import * as r from './responses.ts';

/** A success answered with an HTML page (the public pages a recipient's browser opens). */
export const HTML_PAGE = 'text/html';

export interface Operation {
  summary: string;
  description?: string;
  /** The success replies by status. */
  responses: Partial<Record<200 | 201, v.GenericSchema | typeof HTML_PAGE>>;
  /**
   * Error codes of this handler beyond those every route of its kind can give
   * (see `derivedErrorCodes` in document.ts): its not-found and conflict codes.
   */
  errors?: readonly ErrorCode[];
  /** Statuses at which a page (HTML) answers, instead of or beside JSON: the pages a browser posts to. */
  pageStatuses?: readonly number[];
  /** An example request body. */
  example?: Record<string, unknown>;
}

const sendErrors = ['SENDER_NOT_VERIFIED', 'QUOTA_EXCEEDED', 'TEMPLATE_NOT_FOUND', 'RECIPIENT_SUPPRESSED', 'MESSAGE_REJECTED', 'SES_THROTTLED', 'SENDING_PAUSED'] as const;
const idempotentSendErrors = [...sendErrors, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'] as const;

export const OPERATIONS: Record<HandlerName, Operation> = {
  'audiences/create': {
    summary: 'Create an audience',
    responses: { 201: r.dataReply(r.audience) },
    example: { name: 'Newsletter', description: 'Monthly product news' },
  },
  'audiences/list': { summary: 'List audiences', responses: { 200: r.listReply('audiences', r.audienceListItem) } },
  'audiences/get': { summary: 'Get an audience', responses: { 200: r.dataReply(r.audience) }, errors: ['AUDIENCE_NOT_FOUND'] },
  'audiences/stats': { summary: 'Contact counts of an audience by status', responses: { 200: r.dataReply(r.audienceStats) }, errors: ['AUDIENCE_NOT_FOUND'] },
  'audiences/update': {
    summary: 'Change the name or description of an audience',
    responses: { 200: r.dataReply(r.audience) },
    errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'],
    example: { description: 'Weekly product news' },
  },
  'audiences/delete': { summary: 'Delete an audience (its contacts are kept)', responses: { 200: r.deletedReply }, errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'] },

  'contacts/create': {
    summary: 'Create a contact in an audience',
    responses: { 201: r.dataReply(r.contact) },
    errors: ['AUDIENCE_NOT_FOUND', 'CONTACT_EXISTS', 'CONFLICT'],
    example: { email: 'ada@example.com', audienceId: 'aud_0BqM3xYfZk2T', firstName: 'Ada', tags: ['beta'], customFields: { plan: 'pro' } },
  },
  'contacts/list': { summary: 'List contacts, filtered by audience, status, tag or search', responses: { 200: r.listReply('contacts', r.contactListItem) }, errors: ['AUDIENCE_NOT_FOUND'] },
  'contacts/bulk-import': {
    summary: 'Import up to 1,000 contacts into an audience',
    description: 'Each entry is validated on its own: a bad entry is reported in `errors` and the rest are imported.',
    responses: { 200: r.importResult },
    errors: ['AUDIENCE_NOT_FOUND', 'CONFLICT'],
    example: { audienceId: 'aud_0BqM3xYfZk2T', contacts: [{ email: 'ada@example.com', firstName: 'Ada' }], skipDuplicates: true },
  },
  'contacts/get-by-email': { summary: 'Find a contact of an audience by address', responses: { 200: r.dataReply(r.contact) }, errors: ['CONTACT_NOT_FOUND', 'AUDIENCE_NOT_FOUND'] },
  'contacts/get': { summary: 'Get a contact', responses: { 200: r.dataReply(r.contact) }, errors: ['CONTACT_NOT_FOUND'] },
  'contacts/update': {
    summary: 'Change a contact (only the fields given)',
    responses: { 200: r.dataReply(r.contact) },
    errors: ['CONTACT_NOT_FOUND', 'CONFLICT'],
    example: { status: 'unsubscribed', tags: ['beta', 'vip'] },
  },
  'contacts/delete': { summary: 'Delete a contact permanently', responses: { 200: r.deletedReply }, errors: ['CONTACT_NOT_FOUND', 'CONFLICT'] },

  'templates/create': {
    summary: 'Create a template',
    responses: { 201: r.dataReply(r.template) },
    errors: ['CONFLICT'],
    example: { name: 'Welcome', subject: 'Welcome, {{firstName|"friend"}}', components: [{ type: 'heading', content: 'Hello {{firstName}}' }, { type: 'button', label: 'Get started', url: 'https://example.com/start' }] },
  },
  'templates/list': { summary: 'List templates', responses: { 200: r.listReply('templates', r.templateListItem) } },
  'templates/get': { summary: 'Get a template with its components and styles', responses: { 200: r.dataReply(r.template) }, errors: ['TEMPLATE_NOT_FOUND'] },
  'templates/update': { summary: 'Change a template', responses: { 200: r.dataReply(r.template) }, errors: ['TEMPLATE_NOT_FOUND', 'CONFLICT'], example: { subject: 'Welcome aboard' } },
  'templates/delete': { summary: 'Delete a template', responses: { 200: r.deletedReply }, errors: ['TEMPLATE_NOT_FOUND', 'CONFLICT'] },
  'templates/render': {
    summary: 'Render a template with variables (preview)',
    responses: { 200: r.renderedTemplate },
    errors: ['TEMPLATE_NOT_FOUND'],
    example: { variables: { firstName: 'Ada' } },
  },

  'domains/create': {
    summary: 'Add a sending domain; answers the DNS records to publish',
    responses: { 201: r.dataReply(r.domain) },
    errors: ['DOMAIN_EXISTS'],
    example: { domain: 'mail.example.com' },
  },
  'domains/list': { summary: 'List sending domains', responses: { 200: r.listReply('domains', r.domainListItem) } },
  'domains/get': { summary: 'Get a sending domain with its records and verification status', responses: { 200: r.dataReply(r.domain) }, errors: ['DOMAIN_NOT_FOUND'] },

  'subscriptions/unsubscribe-page': {
    summary: 'Unsubscribe page of a signed link',
    responses: { 200: HTML_PAGE },
    pageStatuses: [400],
  },
  'subscriptions/unsubscribe': {
    summary: 'Unsubscribe (also RFC 8058 one-click)',
    description: 'The address leaves every audience of the account where it is subscribed or pending; an address that is no contact of the account goes on its suppression list, which general sends honour (OTP and transactional sends do not).',
    responses: { 200: HTML_PAGE },
    pageStatuses: [400],
  },
  'subscriptions/preferences-page': { summary: 'Subscription preferences page of a signed link', responses: { 200: HTML_PAGE }, pageStatuses: [400] },
  'subscriptions/update-preferences': {
    summary: 'Leave or rejoin an audience, or leave all',
    description: 'Without `audienceId` the choice also applies to the address\'s standing with all of the account\'s mail, shown for an address that is no contact: leaving puts it on the suppression list, rejoining lifts an unsubscribe (never a bounce or complaint).',
    responses: { 200: HTML_PAGE },
    pageStatuses: [400, 409],
    example: { status: 'unsubscribed', audienceId: 'aud_0BqM3xYfZk2T' },
  },

  'email/send': {
    summary: 'Send an email to up to 50 recipients',
    description: 'Each recipient gets a message of its own, carrying `cc` and `bcc`. When the content shows `{{unsubscribeUrl}}` or `{{preferencesUrl}}` (links that act on the address they are delivered to), each `cc` and `bcc` address gets a message of its own instead, addressed to it alone with its own links; these copies are charged, recorded and listed in `successfulEmails`, and leave only when some recipient\'s message did. A recipient, `cc` or `bcc` address that unsubscribed, bounced or complained is left out and listed in `failedEmails` as `RECIPIENT_SUPPRESSED`; a suppressed `cc` or `bcc` address does not fail the send. `recipientCount` counts `recipients` only. When every recipient fails the answer is 422 `ALL_RECIPIENTS_FAILED` carrying the whole send result. With an `idempotencyKey`, a retry with the same body gets the first answer back (header `Idempotent-Replayed: true`) and nothing is sent again.',
    responses: { 200: r.emailSendResult },
    errors: [...idempotentSendErrors, 'ATTACHMENT_TOO_LARGE', 'ATTACHMENT_NOT_FOUND', 'ATTACHMENT_NOT_UPLOADED', 'ALL_RECIPIENTS_FAILED'],
    example: { from: 'Acme <hello@example.com>', recipients: ['ada@example.com'], subject: 'Hello {{firstName}}', content: '<p>Hi {{firstName}}</p>', variables: { firstName: 'Ada' } },
  },
  'attachments/create': {
    summary: 'Start an attachment upload (files up to 7 MB)',
    description: 'Answers a pre-signed URL: PUT the file there with exactly `headers`, then reference it in POST /api/email/send as `{"id": "att_…"}` within 24 hours.',
    responses: { 201: r.dataReply(r.attachmentUpload) },
    errors: ['ATTACHMENT_TOO_LARGE'],
    example: { filename: 'report.pdf', contentType: 'application/pdf', size: 7340032 },
  },
  'otp/send': {
    summary: 'Send a one-time code',
    description: 'POST /api/otp is the same endpoint under a second path.',
    responses: { 200: r.singleSendResult },
    errors: [...idempotentSendErrors],
    example: { to: 'ada@example.com', from: 'hello@example.com', code: '482913', appName: 'Acme', expiresInMinutes: 10 },
  },
  'transactional/send': {
    summary: 'Send one transactional email',
    responses: { 200: r.singleSendResult },
    errors: [...idempotentSendErrors],
    example: { to: 'ada@example.com', from: 'hello@example.com', subject: 'Your receipt', content: '<p>Thanks for your order.</p>', idempotencyKey: 'order-1234' },
  },
  'emails/get': { summary: 'Get the record of a sent email', responses: { 200: r.dataReply(r.email) }, errors: ['EMAIL_NOT_FOUND'] },

  'forms/create': {
    summary: 'Create a form',
    responses: { 201: r.dataReply(r.form) },
    errors: ['AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED', 'CONFLICT'],
    example: { title: 'Newsletter signup', fields: [{ id: 'email', type: 'email', label: 'Email', required: true }], published: true },
  },
  'forms/list': { summary: 'List forms with their analytics', responses: { 200: r.listReply('forms', r.formListItem) } },
  'forms/get-public': { summary: 'Get a published form for rendering', responses: { 200: r.dataReply(r.publicForm) }, errors: ['FORM_NOT_FOUND'] },
  'forms/get': { summary: 'Get a form with its settings', responses: { 200: r.dataReply(r.form) }, errors: ['FORM_NOT_FOUND'] },
  'forms/update': {
    summary: 'Change a form',
    responses: { 200: r.dataReply(r.form) },
    errors: ['FORM_NOT_FOUND', 'AUDIENCE_NOT_FOUND', 'SLUG_TAKEN', 'SENDER_NOT_VERIFIED', 'CONFLICT'],
    example: { published: false },
  },
  'forms/delete': { summary: 'Delete a form with its submissions', responses: { 200: r.deletedReply }, errors: ['FORM_NOT_FOUND', 'CONFLICT'] },
  'forms/submissions': { summary: 'List the submissions of a form', responses: { 200: r.listReply('submissions', r.submission) }, errors: ['FORM_NOT_FOUND'] },
  'forms/submit': {
    summary: 'Submit a published form (by id or slug)',
    description: 'A browser posting the HTML form (`Accept: text/html`) gets the form page back, with the errors marked.',
    responses: { 200: r.submitReceipt },
    errors: ['FORM_NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
    pageStatuses: [200, 404, 422, 429],
    example: { email: 'ada@example.com' },
  },
  'forms/page': { summary: 'Hosted page of a published form', responses: { 200: HTML_PAGE }, pageStatuses: [404] },
  'forms/confirm-page': {
    summary: 'Double opt-in link: a page with a confirmation button',
    description: 'Changes nothing (mail scanners open links); its button posts to the same address.',
    responses: { 200: HTML_PAGE },
    pageStatuses: [400],
  },
  'forms/confirm': {
    summary: 'Confirm a double opt-in subscription',
    description: 'The confirmation page\'s button: moves the pending contact of the audience the signed link names to `subscribed`. The body is ignored.',
    responses: { 200: HTML_PAGE },
    pageStatuses: [400, 409],
  },

  'system/openapi': { summary: 'This API description (OpenAPI 3.1)', responses: { 200: r.openApiDocument } },
  'system/docs': { summary: 'The API reference page', responses: { 200: HTML_PAGE } },
};
