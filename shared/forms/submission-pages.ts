// The submit endpoint's replies, apart from the hosted page: submitting sends mail, showing the page does not.
import { findFormToSubmit, InvalidSubmission, submitToForm, type SubmitRequest } from './submissions.ts';
import { NotFoundError, RateLimitError } from '#shared/platform/errors.ts';
import { ok, type Reply } from '#shared/platform/http/reply.ts';
import { bodyFormat, formNotFoundPage, formPage, wantsHtml } from './pages.ts';

export interface SubmissionRequestInput {
  formRef: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  sourceIp: string;
  now: Date;
}

/**
 * POST /api/forms/{formId}/submit. JSON: `{success, message, submissionId}`
 * or the error envelope. A browser's plain form post: the success message, or
 * the form again with the values given and each field's error (422), as a page.
 */
export async function submissionReply(input: SubmissionRequestInput): Promise<Reply> {
  const request: SubmitRequest = { body: input.body, format: bodyFormat(input.headers), sourceIp: input.sourceIp, now: input.now };
  if (!wantsHtml(input.headers)) {
    const receipt = await submitToForm(await findFormToSubmit(input.formRef, request), request);
    return ok({ message: receipt.message, submissionId: receipt.submissionId });
  }
  let published: Awaited<ReturnType<typeof findFormToSubmit>>;
  try {
    published = await findFormToSubmit(input.formRef, request);
  } catch (error) {
    if (error instanceof NotFoundError) return formNotFoundPage();
    throw error;
  }
  const { form } = published;
  try {
    const receipt = await submitToForm(published, request);
    return formPage(form, { notice: { text: receipt.message } });
  } catch (error) {
    if (error instanceof InvalidSubmission) {
      return formPage(form, {
        values: input.body,
        errors: error.errors,
        notice: { text: 'Please correct the fields marked below.', error: true },
        status: 422,
      });
    }
    if (error instanceof RateLimitError) {
      return formPage(form, {
        values: input.body,
        notice: { text: `Too many submissions. Please wait ${error.details.retryAfter} seconds and send the form again.`, error: true },
        status: 429,
      });
    }
    if (error instanceof NotFoundError) return formNotFoundPage();
    throw error;
  }
}
