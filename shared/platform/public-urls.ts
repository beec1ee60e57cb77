// Apart from the signed links so that pages which only need the base (form URLs) do not bundle the signing-key lookup.
import { config } from './config.ts';

/**
 * Where the public pages live: `PUBLIC_BASE_URL`, which the stack sets (its
 * API or custom domain) and `npm start` sets (`http://127.0.0.1:$PORT`). Never
 * the request's `Host` or `X-Forwarded-*`: those are the client's to choose,
 * and the links built from this are mailed from the account's own domain.
 */
export function publicBase(): string {
  if (!config.PUBLIC_BASE_URL) throw new Error('PUBLIC_BASE_URL is not set: links to the public pages cannot be built');
  return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
}
