/**
 * The two emails a form sends through the sending path: a notice of each
 * submission to `notifyEmail`, and the double opt-in confirmation request.
 *
 * Everything a submitter or the form's owner wrote (labels, values, title)
 * travels as template variables, never in the template source, so it is
 * escaped like any variable and cannot be read as template syntax.
 */
import type { FormRecord, SubmissionRecord } from '#shared/data/forms.ts';
import { parseMailbox, type Mailbox } from '#shared/email/address.ts';
import type { OutgoingAttachment } from '#shared/email/transport.ts';
import { log } from '#shared/log.ts';
import { deliver, SUPPRESSED_FOR_TRANSACTIONAL } from './sending.ts';
import { signingSecret } from './signing-secret.ts';
import { publicBase } from './public-urls.ts';
import { signSubscriptionToken } from './subscription-links.ts';

/** When a submission came in. */
export interface SubmissionContext {
  now: Date;
}

interface FormEmail {
  to: string;
  replyTo?: Mailbox;
  subject: string;
  html: string;
  variables: Record<string, unknown>;
  attachments?: OutgoingAttachment[];
}

/**
 * One message from the form's sender, delivered as its account (live: there
 * is no key, and so no test mode, behind a public form). Counts against the
 * account's quota; recipients that bounced or complained are not sent to.
 */
async function deliverFormEmail(accountId: string, form: FormRecord, email: FormEmail, { now }: SubmissionContext): Promise<void> {
  const from = form.settings.from ? parseMailbox(form.settings.from) : undefined;
  if (!from) throw new Error(`Form ${form.formId} has no valid sender`);
  const { messages: [result] } = await deliver({
    type: 'transactional',
    from,
    recipients: [email.to],
    cc: [],
    bcc: [],
    replyTo: email.replyTo,
    content: { html: email.html, subject: email.subject },
    variables: email.variables,
    attachments: email.attachments ?? [],
    suppressWhen: SUPPRESSED_FOR_TRANSACTIONAL,
  }, { principal: { accountId, env: 'live' }, now });
  if (result?.status !== 'sent' && result?.status !== 'queued') {
    log.warn('form email not sent', { accountId, formId: form.formId, emailId: result?.emailId, error: result?.error });
  }
}

const NOTICE_SUBJECT = 'New submission: {{formTitle}}';
const NOTICE_HTML = `<h1 style="font-size:20px">New submission to {{formTitle}}</h1>
<table cellpadding="6" style="border-collapse:collapse">
{% for row in rows %}<tr><th align="left" valign="top" style="border-bottom:1px solid #e4e4e7">{{ row.label }}</th><td style="border-bottom:1px solid #e4e4e7;white-space:pre-wrap">{{ row.value }}</td></tr>
{% endfor %}</table>
<p style="color:#71717a;font-size:12px">Submission {{submissionId}} at {{submittedAt}}</p>`;

interface StoredFile {
  filename: string;
  contentType: string;
  content: string;
  size: number;
}

function isFile(value: unknown): value is StoredFile {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'filename' in value;
}

function displayValue(value: unknown): string {
  if (Array.isArray(value)) return value.join(', ');
  if (isFile(value)) return `${value.filename} (${value.size} bytes, attached)`;
  return String(value);
}

/** The submission's answers in the form's order, files attached; the reply goes to the submitter's email when one was given. */
export async function sendSubmissionNotice(accountId: string, form: FormRecord, submission: SubmissionRecord, context: SubmissionContext): Promise<void> {
  const answered = form.fields.filter((field) => submission.data[field.id] !== undefined);
  const emailField = answered.find((field) => field.type === 'email');
  const replyTo = emailField ? parseMailbox(submission.data[emailField.id] as string) : undefined;
  const files = answered.map((field) => submission.data[field.id]).filter(isFile);
  await deliverFormEmail(accountId, form, {
    to: form.settings.notifyEmail!,
    ...(replyTo ? { replyTo } : {}),
    subject: NOTICE_SUBJECT,
    html: NOTICE_HTML,
    variables: {
      formTitle: form.title,
      rows: answered.map((field) => ({ label: field.label, value: displayValue(submission.data[field.id]) })),
      submissionId: submission.submissionId,
      submittedAt: submission.createdAt,
    },
    attachments: files.map((file) => ({ filename: file.filename, contentType: file.contentType, content: Buffer.from(file.content, 'base64') })),
  }, context);
}

const CONFIRM_SUBJECT = 'Please confirm your subscription';
const CONFIRM_HTML = `<h1 style="font-size:20px">Confirm your subscription</h1>
<p>You signed up through the form “{{formTitle}}”. Please confirm that you want to receive these emails:</p>
<p><a href="{{confirmUrl}}" style="display:inline-block;padding:10px 18px;background:#18181b;color:#ffffff;border-radius:6px;text-decoration:none">Confirm subscription</a></p>
<p style="color:#71717a;font-size:12px">If you did not sign up, ignore this email: you will not be subscribed.</p>`;

/**
 * The link that confirms a pending contact: the recipient's signed
 * subscription token (the same key and format as the unsubscribe links, so
 * nobody can make one for another address) and the audience it confirms.
 *
 * `https://api.example.com/confirm/<token>?audienceId=aud_…`
 */
async function confirmationUrl(accountId: string, email: string, audienceId: string, now: Date): Promise<string> {
  const token = signSubscriptionToken(await signingSecret(), accountId, email, now);
  return `${publicBase()}/confirm/${token}?audienceId=${encodeURIComponent(audienceId)}`;
}

/** Asks a pending contact of the form's audience to confirm (double opt-in). */
export async function sendConfirmationRequest(accountId: string, form: FormRecord, email: string, context: SubmissionContext): Promise<void> {
  await deliverFormEmail(accountId, form, {
    to: email,
    subject: CONFIRM_SUBJECT,
    html: CONFIRM_HTML,
    variables: { formTitle: form.title, confirmUrl: await confirmationUrl(accountId, email, form.audienceId!, context.now) },
  }, context);
}
