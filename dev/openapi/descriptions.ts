/**
 * Prose of the API description that no schema or route carries: what each
 * tag (the area of functions/<area>/) and each named component is. Keyed by
 * the route table's areas, so a new area does not compile without its text.
 */
import type { AREAS } from '#functions/routes.ts';

/** An area of the route table: `contacts`, `templates`… */
export type Area = keyof typeof AREAS;

export const TAG_DESCRIPTIONS: Record<Area, string> = {
  audiences: 'Lists of contacts that broadcasts, forms and segments are built on. Deleting an audience keeps its contacts.',
  contacts:
    'The people of an audience: address, name, status (subscribed, unsubscribed, pending, bounced, complained), tags and custom fields. An address is unique per audience, compared case-insensitively.',
  templates:
    'Reusable emails built from components (heading, text, button) and styles, rendered with liquidjs: `{{name}}`, `{{#if name}}…{{/if}}`, `{{name|"default"}}`.',
  domains:
    'Sending domains: the DNS records to publish (DKIM, ownership, SPF, DMARC) and their verification. Mail goes only from domains the account verified itself.',
  subscriptions:
    'The pages of the signed links a recipient gets (`{{unsubscribeUrl}}`, `{{preferencesUrl}}`, `List-Unsubscribe`): no key, the link is the credential and acts only on the address it was sent to.',
  email:
    'Sending: each recipient gets a message of its own. Suppressed addresses (unsubscribed, bounced, complained) are refused per recipient in `failedEmails`.',
  attachments: 'Uploads of files too large to send inline: a pre-signed URL to PUT the file to, referenced in a send by its id.',
  otp: 'One-time codes by email, with a per-recipient window (429 beyond it) and idempotent retries.',
  transactional:
    'One email to one address (receipts, password resets), with idempotent retries; refused only for bounces and complaints, never for an unsubscribe.',
  emails:
    'The message log: the records of sent emails, their delivery status and their events, newest first with cursor pagination. Kept for the configured retention (30 days by default).',
  events:
    'Everything that happened in the account (sends, deliveries, bounces, contact changes, form submissions…) as events `{id, type, createdAt, data}`, the same events webhooks deliver.',
  webhooks:
    "Endpoints that receive the account's events as signed POSTs (Standard Webhooks), retried with backoff over about a day; each delivery and its attempts are listed and can be retried.",
  forms: 'Signup forms: managed with a key, viewed and submitted by anyone once published (hosted page, JSON or HTML form post), with double opt-in.',
  system: 'This description and its reference page.',
  session:
    "Signing in to the dashboard: a 6-digit code mailed to a member's address, exchanged for a session cookie (HttpOnly, SameSite=Strict) that ends after 12 hours unused or 7 days in all. The session then calls every keyed operation as the member's role allows.",
  team: "The people of the account and their roles: `admin` (everything) or `member` (everything but the team, API keys and domains). Admins' sessions only: API keys get 403.",
  broadcasts:
    "One message to each subscribed contact of an audience or a segment of it, minus the suppression list, sent in the background at the deployment's SES rate, exactly once per contact; created as drafts, sent now or at a time, paused when the quota runs out and resumed on send.",
  suppressions:
    "The account's suppression list: addresses no send reaches, for what no contact status holds (a bounce or complaint of an address that is no contact, an unsubscribe from all mail, an address added by hand). Search it by the start of an address, add up to 1,000 by hand, lift one (a complaint only with `confirm=complaint`).",
  'api-keys':
    "The account's API keys: `full` or `sending` (the send endpoints only, optionally from one domain), live or test. The secret is shown once, at creation; lists show its last 4 characters. Disabling (403) and revoking (401) hold from the key's next request, in every region.",
  stats: 'Sending statistics per UTC day (sent, delivered, bounced, complained, opened, clicked, failed) and their rates, kept as events are recorded.',
};

/** What each named component is; a lazy schema's component takes its own `v.metadata` title and description instead. */
export const COMPONENT_DESCRIPTIONS: Record<string, string> = {
  Pagination: 'Where a page sits in a list: `total` items, `pages` of `limit` items each.',
  Contact: 'A contact of an audience, with every field.',
  ContactListItem: 'A contact as lists show it.',
  Audience: 'An audience with its exact contact count.',
  AudienceListItem: 'An audience as lists show it.',
  AudienceStats: 'Contact counts of an audience by status, and its growth over the last 30 days in percent.',
  Template: 'A template with its components and styles.',
  TemplateListItem: 'A template as lists show it.',
  Domain: 'A sending domain with the DNS records to publish.',
  DomainListItem: 'A sending domain as lists show it.',
  Email: 'The record of one sent message (one recipient) and its delivery status.',
  CursorPagination: 'Where a list that grows without bound goes on: pass `nextCursor` back as `cursor`; null on the last page.',
  Event: 'One event: its `type` from the catalogue and its `data` (for `email.*` events `emailId`, `to`, `subject`, …).',
  Webhook: 'A webhook endpoint, without its secret.',
  Delivery: 'One event delivered to one endpoint: its status and attempts so far.',
  Form: 'A form with its fields, settings and look.',
  FormListItem: 'A form as lists show it, with its hosted address and analytics.',
  PublicForm: 'What a published form shows to anyone: title, fields and look.',
  Submission: 'One stored submission of a form.',
  Member: 'A person of the account: their address, role and last sign-in.',
  Session: 'A signed-in person: who they are in the current account, and every account they may switch to.',
  ErrorCode: 'Every error code the API answers; each operation lists those it can give, by status.',
};
