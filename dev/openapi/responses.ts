/**
 * What the API answers, as valibot schemas: the OpenAPI document is generated
 * from them (dev/openapi/document.ts) and the test suite checks every
 * response it receives against them, so a reply that drifts from its
 * description fails a test. Strict objects: a field added to a reply must be
 * described here too.
 */
import * as v from 'valibot';
import { CONTACT_STATUSES } from '#shared/model/contact-status.ts';

const timestamp = v.pipe(v.string(), v.isoTimestamp());
const nullableText = v.nullable(v.string());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const pagination = v.strictObject({
  total: count,
  page: v.pipe(v.number(), v.integer(), v.minValue(1)),
  limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
  pages: count,
  /** Filtered contact lists count at most a bounded number of items. */
  truncated: v.optional(v.literal(true)),
});

/** `{success: true, data}`: one resource. */
export function dataReply<T extends v.GenericSchema>(data: T) {
  return v.strictObject({ success: v.literal(true), data });
}

/** `{success: true, <name>: [...], pagination}`: one page of a list. */
export function listReply(name: string, item: v.GenericSchema): v.GenericSchema {
  return v.strictObject({ success: v.literal(true), [name]: v.array(item), pagination });
}

/** `{success: true, message}`: a removal. */
export const deletedReply = v.strictObject({ success: v.literal(true), message: v.string() });

const contactStatus = v.picklist(CONTACT_STATUSES);
const customFields = v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]));

export const contact = v.strictObject({
  id: v.string(),
  email: v.string(),
  audienceId: v.string(),
  firstName: nullableText,
  lastName: nullableText,
  phone: nullableText,
  status: contactStatus,
  tags: v.array(v.string()),
  customFields,
  createdAt: timestamp,
  updatedAt: timestamp,
  lastActivityAt: timestamp,
});

export const contactListItem = v.strictObject({
  id: v.string(),
  email: v.string(),
  firstName: nullableText,
  lastName: nullableText,
  status: contactStatus,
  audienceId: v.string(),
  tags: v.array(v.string()),
  createdAt: timestamp,
});

export const importResult = v.strictObject({
  success: v.literal(true),
  imported: count,
  failed: count,
  skipped: count,
  errors: v.array(v.strictObject({
    index: count,
    email: v.unknown(),
    error: v.string(),
    message: v.string(),
    field: v.optional(v.string()),
  })),
});

export const audience = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: nullableText,
  count,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const audienceListItem = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: nullableText,
  count,
  createdAt: timestamp,
});

export const audienceStats = v.strictObject({
  total: count,
  ...Object.fromEntries(CONTACT_STATUSES.map((status) => [status, count])) as Record<(typeof CONTACT_STATUSES)[number], typeof count>,
  growthRate: v.number(),
});

const componentStyles = v.record(v.string(), v.union([v.string(), v.number()]));

const templateComponent = v.variant('type', [
  v.strictObject({ id: v.string(), type: v.literal('heading'), content: v.string(), level: v.picklist([1, 2]), styles: componentStyles }),
  v.strictObject({ id: v.string(), type: v.literal('text'), content: v.string(), styles: componentStyles }),
  v.strictObject({ id: v.string(), type: v.literal('button'), label: v.string(), url: v.string(), styles: componentStyles }),
]);

export const template = v.strictObject({
  id: v.string(),
  name: v.string(),
  subject: v.string(),
  components: v.array(templateComponent),
  styles: v.strictObject({ backgroundColor: v.string(), width: v.number(), padding: v.number() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const templateListItem = v.strictObject({
  id: v.string(),
  name: v.string(),
  subject: v.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const renderedTemplate = v.strictObject({ success: v.literal(true), subject: v.string(), html: v.string(), text: v.string() });

const dnsRecord = v.strictObject({
  purpose: v.picklist(['dkim', 'ownership', 'spf', 'dmarc']),
  type: v.picklist(['CNAME', 'TXT']),
  name: v.string(),
  value: v.string(),
  required: v.boolean(),
});

const domainFields = {
  id: v.string(),
  domain: v.string(),
  verified: v.boolean(),
  status: v.picklist(['pending', 'verified', 'failed']),
  createdAt: timestamp,
  verifiedAt: v.nullable(timestamp),
};

export const domain = v.strictObject({ ...domainFields, records: v.array(dnsRecord) });
export const domainListItem = v.strictObject(domainFields);

/** POST /api/attachments: the id to reference in a send, and where to PUT the file. */
export const attachmentUpload = v.strictObject({
  id: v.string(),
  filename: v.string(),
  contentType: v.string(),
  size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  uploadUrl: v.pipe(v.string(), v.url()),
  method: v.literal('PUT'),
  headers: v.record(v.string(), v.string()),
  uploadExpiresAt: timestamp,
  expiresAt: timestamp,
});

export const email = v.strictObject({
  id: v.string(),
  trackingId: v.string(),
  type: v.picklist(['email', 'otp', 'transactional']),
  from: v.string(),
  to: v.string(),
  cc: v.array(v.string()),
  bcc: v.array(v.string()),
  replyTo: nullableText,
  subject: v.string(),
  status: v.picklist(['sent', 'failed', 'queued', 'suppressed', 'delivered', 'bounced', 'complained', 'rejected']),
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  sesMessageId: nullableText,
  test: v.boolean(),
  createdAt: timestamp,
});

/** Email send result (docs/api.md, "Sending email"); a send where every recipient failed is this in a 422 envelope. */
export const emailSendResult = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  successfulEmails: v.array(v.strictObject({
    recipient: v.string(),
    trackingId: v.string(),
    /** Present on a recipient whose message SES throttled: it waits on the retry queue and is sent later. */
    queued: v.optional(v.literal(true)),
  })),
  failedEmails: v.array(v.strictObject({ recipient: v.string(), error: v.string(), message: v.string() })),
  recipientCount: count,
  emailsRemaining: count,
});

/** OTP and transactional sends. */
export const singleSendResult = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  trackingId: v.string(),
  emailId: v.string(),
  queued: v.boolean(),
});

const formField = v.strictObject({
  id: v.string(),
  type: v.string(),
  label: v.string(),
  placeholder: nullableText,
  required: v.boolean(),
  options: v.optional(v.array(v.string())),
});

const formLook = {
  appearance: v.strictObject({ backgroundColor: v.string(), primaryColor: v.string(), fontFamily: v.string() }),
  buttonCustomization: v.strictObject({ text: v.string(), variant: v.string() }),
};

/** What a form and its list item share. */
const formSummary = {
  id: v.string(),
  title: v.string(),
  description: nullableText,
  slug: v.string(),
  published: v.boolean(),
  fields: v.array(formField),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const form = v.strictObject({
  ...formSummary,
  settings: v.strictObject({
    successMessage: v.string(),
    notifyEmail: nullableText,
    enableCaptcha: v.boolean(),
    storeResponses: v.boolean(),
    doubleOptIn: v.boolean(),
    from: nullableText,
  }),
  audienceId: nullableText,
  ...formLook,
});

export const formListItem = v.strictObject({
  ...formSummary,
  publishedUrl: v.string(),
  analytics: v.strictObject({ views: count, submissions: count, conversionRate: v.number() }),
});

export const publicForm = v.strictObject({
  title: v.string(),
  description: nullableText,
  fields: v.array(formField),
  ...formLook,
});

export const submission = v.strictObject({ id: v.string(), data: v.record(v.string(), v.unknown()), createdAt: timestamp });

export const submitReceipt = v.strictObject({ success: v.literal(true), message: v.string(), submissionId: v.string() });

/** The OpenAPI document itself, checked only for being one. */
export const openApiDocument = v.looseObject({ openapi: v.string(), info: v.looseObject({ title: v.string() }), paths: v.record(v.string(), v.unknown()) });
