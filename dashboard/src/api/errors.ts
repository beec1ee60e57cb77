/**
 * A failed call as a person meets it: the API's own message (never a stack or
 * the raw envelope), the field it names, and when to try again after a 429.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The request field the API names (`domain`, `events[0]`), for the form to show its message beside it. */
  readonly field: string | undefined;
  /** Seconds until a refused request may be sent again (429, an idempotency key in flight). */
  readonly retryAfter: number | undefined;

  constructor(fields: { status: number; code: string; message: string; field?: string | undefined; retryAfter?: number | undefined }) {
    super(fields.message);
    this.name = 'ApiError';
    this.status = fields.status;
    this.code = fields.code;
    this.field = fields.field;
    this.retryAfter = fields.retryAfter;
  }

  /** From the error envelope `{"success": false, "error", "message", "field"?, "retryAfter"?}`, or a plain sentence when something else answered. */
  static fromResponse(response: Response, body: unknown): ApiError {
    const envelope = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const header = Number(response.headers.get('retry-after'));
    const retryAfter = typeof envelope.retryAfter === 'number' ? envelope.retryAfter : Number.isFinite(header) && header > 0 ? header : undefined;
    if (typeof envelope.error === 'string' && typeof envelope.message === 'string') {
      return new ApiError({
        status: response.status,
        code: envelope.error,
        message: envelope.message,
        field: typeof envelope.field === 'string' ? envelope.field : undefined,
        retryAfter,
      });
    }
    return new ApiError({ status: response.status, code: `HTTP_${response.status}`, message: plainMessage(response.status), retryAfter });
  }
}

function plainMessage(status: number): string {
  if (status === 413) return 'That is more than the service accepts in one request.';
  if (status === 429) return 'Too many requests.';
  if (status >= 500) return 'The service had a problem. Try again in a moment.';
  return `The service refused the request (HTTP ${status}).`;
}

/** Any thrown value as an ApiError, so a view never shows a raw exception. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError({ status: 0, code: 'UNEXPECTED', message: 'Something went wrong in this page. Reload it and try again.' });
}

/** `Too many requests. Try again in 12 seconds.` */
export function describeError(error: ApiError): string {
  if (error.status !== 429 && error.retryAfter === undefined) return error.message;
  const seconds = error.retryAfter ?? 1;
  return `${error.message.replace(/\.?$/, '.')} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
