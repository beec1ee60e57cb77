/**
 * The one way the dashboard reaches the API: openapi-fetch typed by
 * dev/client/schema.ts, the types generated from docs/openapi.json, the
 * document customers get. No request or reply shape is written here by hand.
 * Same origin as the API, so the session cookie goes along without CORS.
 */
import createClient from 'openapi-fetch';
import type { paths } from '#dev/client/schema.ts';
import { ApiError } from './errors.ts';

export type { paths };

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

let onSessionEnded: () => void = () => undefined;

/** What to do when the API says the session is gone (expired, signed out elsewhere, the member removed): app.tsx shows sign-in. */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

api.use({
  onResponse({ request, response }) {
    // Sign-in's own endpoints answer 401 for a wrong code or no session yet: that is not a session ending.
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/session')) onSessionEnded();
    return undefined;
  },
});

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or an ApiError made from the error envelope
 * (or from what answered instead: a proxy's page, a dropped connection).
 *
 * `const domain = await call(api.GET('/api/domains/{id}', { params: { path: { id } } }))`
 */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<Exclude<T, undefined>> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch {
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: 'The service could not be reached. Check your connection and try again.' });
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) throw ApiError.fromResponse(response, error);
  return data as Exclude<T, undefined>;
}
