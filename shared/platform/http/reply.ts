/** What an endpoint function returns; the response middleware serialises it. */
export interface Reply {
  status: number;
  /** An object is sent as JSON; a string as is, with the content type in `headers`. */
  body: Record<string, unknown> | string;
  headers?: Record<string, string>;
  /** Set-Cookie values, each a whole cookie with its attributes (API Gateway's `cookies`: one header each). */
  cookies?: string[];
}

/** A JSON reply whose status and body the endpoint factory checks against the contract's reply schema. */
export interface JsonReply<Status extends number, Body> extends Omit<Reply, 'status' | 'body'> {
  status: Status;
  body: Body;
}

/** 200 with `success: true` and the given fields: `ok({ data })`, `ok({ contacts, pagination })`. */
export function ok<const Fields extends object>(fields: Fields, headers?: Record<string, string>): JsonReply<200, { success: true } & Fields> {
  return { status: 200, body: { success: true, ...fields }, ...(headers ? { headers } : {}) };
}

/** 201 with the new resource in `data`. */
export function created<Data>(data: Data): JsonReply<201, { success: true; data: Data }> {
  return { status: 201, body: { success: true, data } };
}

/** 202 with the resource whose work has started (a broadcast sending) in `data`. */
export function accepted<Data>(data: Data): JsonReply<202, { success: true; data: Data }> {
  return { status: 202, body: { success: true, data } };
}

/** 200 confirming a removal. */
export function deleted(message: string): JsonReply<200, { success: true; message: string }> {
  return ok({ message });
}

/** An HTML page (public pages: unsubscribe, preferences, hosted forms). */
export function html(markup: string, status = 200): Reply {
  return { status, body: markup, headers: { 'Content-Type': 'text/html; charset=utf-8' } };
}

/** 200 with the response of an idempotent request; a stored one said again carries `Idempotent-Replayed: true`. */
export function idempotentOk<Response extends object>(result: { response: Response; replayed: boolean }): JsonReply<200, { success: true } & Response> {
  return ok(result.response, result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
}

/** 200 with one page of a cursor-paged list: `cursorPage('events', events, query.limit, nextCursor)`. */
export function cursorPage<const N extends string, T>(name: N, items: T[], limit: number, nextCursor: string | null) {
  return ok({ [name]: items, pagination: { limit, nextCursor } } as { [K in N]: T[] } & { pagination: { limit: number; nextCursor: string | null } });
}

/** `reply` with cookies to set: `withCookies(ok({ data }), [sessionCookie(token)])`. */
export function withCookies<R extends Reply | JsonReply<number, unknown>>(reply: R, cookies: string[]): R {
  return { ...reply, cookies: [...(reply.cookies ?? []), ...cookies] };
}
