/**
 * The dashboard's static files on the local server, at `/app/` on the API's
 * own origin (so the session cookie needs no CORS), served as the deployed
 * distribution will serve them (docs/dashboard.md, "How it is built and served"):
 * - `/app/assets/*`: content-hashed files, cached for a year (`immutable`);
 * - any other `/app/...` path: index.html, never cached, so a deploy is seen
 *   at the next load and the client-side router shows the page for the path;
 * - every answer carries the dashboard's Content-Security-Policy: scripts
 *   only from this origin (no inline script), no request to another origin.
 * The headers and cache rules are dashboard/serving.ts's, which the stack uses too.
 */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSET_CACHE_CONTROL, DASHBOARD_ASSETS, DASHBOARD_PREFIX, DASHBOARD_SECURITY_HEADERS, INDEX_CACHE_CONTROL } from '../../dashboard/serving.ts';
import type { HttpResult } from './http-event.ts';

export { DASHBOARD_PREFIX };

/** Where `npm run build` and `npm start` write the dashboard (dashboard/build.ts) and this server reads it; git-ignored. */
export const DASHBOARD_OUT = fileURLToPath(new URL('../../dist/dashboard', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** `name-HASH.ext`, as dashboard/build.ts names every asset: nothing else under assets/ is served, so no path reaches outside it. */
const ASSET_NAME = /^[A-Za-z0-9_-]+-[A-Z0-9]{8}\.(?:js|css|map|svg|png|woff2)$/;

export function isDashboardPath(path: string): boolean {
  return path === DASHBOARD_PREFIX || path.startsWith(`${DASHBOARD_PREFIX}/`);
}

function answer(statusCode: number, headers: Record<string, string>, body: Buffer | string): HttpResult {
  return { statusCode, headers: { ...DASHBOARD_SECURITY_HEADERS, ...headers }, cookies: [], body: Buffer.from(body) };
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Postlane</title></head><body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code>, or restart <code>npm start</code>, which builds it.</p></main></body></html>`;

/**
 * The answer to a GET or HEAD of a dashboard path, from the build in `dir`.
 *
 * `const result = await serveDashboard('/app/emails', 'GET', DASHBOARD_OUT)`
 */
export async function serveDashboard(path: string, method: string, dir: string): Promise<HttpResult> {
  if (method !== 'GET' && method !== 'HEAD') return answer(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, 'Method Not Allowed');
  // The router works under /app/: a bare /app would resolve relative links against /.
  if (path === DASHBOARD_PREFIX) return answer(308, { location: `${DASHBOARD_PREFIX}/`, 'cache-control': 'no-store' }, '');
  if (path.startsWith(`${DASHBOARD_PREFIX}/${DASHBOARD_ASSETS}/`)) {
    const name = path.slice(`${DASHBOARD_PREFIX}/${DASHBOARD_ASSETS}/`.length);
    const body = ASSET_NAME.test(name) ? await readFile(join(dir, DASHBOARD_ASSETS, name)).catch(() => undefined) : undefined;
    if (!body) return answer(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, 'Not Found');
    return answer(200, { 'content-type': TYPES[extname(name)]!, 'cache-control': ASSET_CACHE_CONTROL }, body);
  }
  const index = await readFile(join(dir, 'index.html')).catch(() => undefined);
  if (!index) return answer(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, NOT_BUILT);
  return answer(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': INDEX_CACHE_CONTROL }, index);
}
