/**
 * The two emails a form sends through the sending path: a notice of each
 * submission to `notifyEmail`, and the double opt-in confirmation request.
 *
 * Everything a submitter or the form's owner wrote (labels, values, title)
 * travels as template variables, never in the template source, so it is
 * escaped like any variable and cannot be read as template syntax.
 */
import { claimConfirmationEmail, type FormRecord, type SubmissionRecord } from './store.ts';
import { parseMailbox, type Mailbox } from '#shared/sending/address.ts';
import type { OutgoingAttachment } from '#shared/attachments/budget.ts';
import { log } from '#shared/platform/log.ts';
import { confirmationUrl } from './confirmation-links.ts';
import { defaultSender } from '#shared/sending/sender.ts';
import { deliver, SUPPRESSED_FOR_TRANSACTIONAL } from '#shared/sending/service.ts';

/** When a submission came in, and who its emails come from (looked up once per submission). */
export interface SubmissionContext {
  now: Date;
  sender: () => Promise<Mailbox | undefined>;
}

/**
 * The context of one submission's emails: `settings.from`, else the account's
 * default sender, read at most once however many emails the submission sends.
 */
export function submissionContext(accountId: string, form: FormRecord, now: Date): SubmissionContext {
  let sender: Promise<Mailbox | undefined> | undefined;
  return { now, sender: () => (sender ??= form.settings.from ? Promise.resolve(parseMailbox(form.settings.from)) : defaultSender(accountId)) };
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
 * One message from the form's sender (`settings.from`, else the account's
 * default sender), delivered as its account. No key is behind a public
 * submission, so the form's `env` stands in for one: the key that last
 * created or changed the form decides, and a test key's form sends as a test
 * key does (recorded, never through SES, no quota). Recipients that bounced
 * or complained are not sent to.
 */
async function deliverFormEmail(accountId: string, form: FormRecord, email: FormEmail, { now, sender }: SubmissionContext): Promise<void> {
  const from = await sender();
  // The form's checks make this rare: the account's last verified domain was removed since.
  if (!from) throw new Error(`Form ${form.formId} has no valid sender`);
  const {
    messages: [result],
  } = await deliver(
    {
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
    },
    { principal: { accountId, env: form.env }, now },
  );
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
  await deliverFormEmail(
    accountId,
    form,
    {
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
    },
    context,
  );
}

const CONFIRM_SUBJECT = 'Please confirm your subscription';
const CONFIRM_HTML = `<h1 style="font-size:20px">Confirm your subscription</h1>
<p>You signed up through the form “{{formTitle}}”. Please confirm that you want to receive these emails:</p>
<p><a href="{{confirmUrl}}" style="display:inline-block;padding:10px 18px;background:#18181b;color:#ffffff;border-radius:6px;text-decoration:none">Confirm subscription</a></p>
<p style="color:#71717a;font-size:12px">If you did not sign up, ignore this email: you will not be subscribed.</p>`;

/** An address gets at most one confirmation email per form in this many seconds (decided: one per hour). */
export const CONFIRMATION_WINDOW_SECONDS = 3600;

/**
 * Asks a pending contact of the form's audience to confirm (double opt-in),
 * unless this form already asked this address within the hour: a form must
 * not be a way to flood someone's inbox. A submission that sends nothing
 * charges no quota (the claim comes before the send).
 */
export async function sendConfirmationRequest(accountId: string, form: FormRecord, email: string, context: SubmissionContext): Promise<void> {
  if (!(await claimConfirmationEmail(accountId, form.formId, email, context.now, CONFIRMATION_WINDOW_SECONDS))) return;
  const confirmUrl = await confirmationUrl({ accountId, email, audienceId: form.audienceId!, formId: form.formId, issuedAt: context.now });
  await deliverFormEmail(
    accountId,
    form,
    {
      to: email,
      subject: CONFIRM_SUBJECT,
      html: CONFIRM_HTML,
      variables: { formTitle: form.title, confirmUrl },
    },
    context,
  );
}
