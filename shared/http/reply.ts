/** What an endpoint function returns; the response middleware serialises it. */
export interface Reply {
  status: number;
  /** An object is sent as JSON; a string as is, with the content type in `headers`. */
  body: Record<string, unknown> | string;
  headers?: Record<string, string>;
}

/** 200 with `success: true` and the given fields: `ok({ data })`, `ok({ contacts, pagination })`. */
export function ok(fields: Record<string, unknown>, headers?: Record<string, string>): Reply {
  return { status: 200, body: { success: true, ...fields }, ...(headers ? { headers } : {}) };
}

/** 201 with the new resource in `data`. */
export function created(data: unknown): Reply {
  return { status: 201, body: { success: true, data } };
}

/** 200 confirming a removal. */
export function deleted(message: string): Reply {
  return ok({ message });
}

/** An HTML page (public pages: unsubscribe, preferences, hosted forms). */
export function html(markup: string, status = 200): Reply {
  return { status, body: markup, headers: { 'Content-Type': 'text/html; charset=utf-8' } };
}

/** 200 with the response of an idempotent request; a stored one said again carries `Idempotent-Replayed: true`. */
export function idempotentOk(result: { response: Record<string, unknown>; replayed: boolean }): Reply {
  return ok(result.response, result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
}
