// Apart from the signed links so that pages which only need the base (form URLs) do not bundle the signing-key lookup.
import { config } from '#shared/config.ts';

/** Where the public pages live: `PUBLIC_BASE_URL` when a custom domain fronts the API, else the address the client called. */
export function publicBase(origin: string): string {
  return (config.PUBLIC_BASE_URL ?? origin).replace(/\/+$/, '');
}
