/**
 * How the dashboard is served, wherever it is: the local server
 * (dev/local/dashboard.ts) and the deployed distribution (lib/dashboard-site.ts)
 * send the same security headers and cache rules from here, so a change to the
 * policy reaches both (docs/dashboard.md, "How it is built and served").
 */

/** The path the dashboard is served under, on the API's own origin (the session cookie needs no CORS). */
export const DASHBOARD_PREFIX = '/app';

/** Where dashboard/build.ts puts the content-hashed files, under the prefix; everything else under it is a client route. */
export const DASHBOARD_ASSETS = 'assets';

/**
 * - `script-src 'self'`: no inline script, no other origin; React and the
 *   pages are files under /app/assets/.
 * - `style-src 'self' 'unsafe-inline'`: an email's HTML is shown in a frame
 *   with `sandbox=""` and `srcdoc`, which inherits this policy, and emails
 *   are styled inline. A style cannot run code; the frame runs no script.
 * - `img-src 'self' data:` and `connect-src 'self'`: an email's remote images
 *   and tracking pixels are not loaded, and the pages reach only the API.
 * - `frame-ancestors 'none'`: the dashboard cannot be framed (clickjacking).
 * - `worker-src 'self'`: the CSV import parses its file in a Web Worker, a
 *   file under /app/assets/; no blob: or data: worker.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** On every answer under the prefix, in lower case as HTTP/2 sends them. */
export const DASHBOARD_SECURITY_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
} as const;

/** The hashed assets: a new build writes new names, so a name's content never changes. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** index.html, the one file without a hash: never taken from a cache, so a deploy is seen at the next load. */
export const INDEX_CACHE_CONTROL = 'no-store';
