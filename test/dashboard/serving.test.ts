/**
 * How the local server serves the dashboard at /app/ (dev/local/dashboard.ts),
 * as the deployed distribution will: hashed assets cached for a year,
 * index.html never, client routes answered with index.html, a CSP without
 * inline scripts on every answer.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BUDGET_PAGES, javascriptFor } from '../../dashboard/build.ts';
import { startApi } from '../support/api.ts';

/** The run's build (test/support/global-setup.ts), which the server serves. */
const built = inject('dashboardBuild');
let base: string;

beforeAll(async () => {
  ({ url: base } = await startApi());
});

async function get(path: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('the dashboard on the local server', () => {
  it('answers every client route with index.html, never cached, under a CSP that allows no inline script and no other origin', async () => {
    for (const path of ['/app/', '/app/emails', '/app/emails/em_123?status=bounced', '/app/no/such/page']) {
      const page = await get(path);

      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.body).toContain(`<script type="module" src="${built.entry.script}"></script>`);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("connect-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    }
  });

  it('caches the hashed assets for a year, and answers 404 for any other name under assets/', async () => {
    const script = await get(built.entry.script);
    const stylesheet = await get(built.entry.stylesheet!);
    const unknown = await get('/app/assets/main-AAAAAAAA.js');
    const traversal = await get('/app/assets/..%2F..%2Fpackage.json');

    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(stylesheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(unknown.status).toBe(404);
    expect(traversal.status).toBe(404);
  });

  it('redirects /app to /app/, and refuses methods other than GET and HEAD', async () => {
    const bare = await get('/app');
    const post = await get('/app/', { method: 'POST', body: '{}' });

    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/app/');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('loads no script from another origin: every script the page names is one of the build', async () => {
    const page = await get('/app/');
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

    expect(sources.length).toBeGreaterThan(1);
    for (const source of sources) expect(source.startsWith('/app/assets/') || source === 'data:,').toBe(true);
  });

  it('loads at most 150 KB of JavaScript gzipped for sign-in plus the Overview, the other pages on demand', () => {
    const firstLoad = javascriptFor(built, BUDGET_PAGES);
    const everything = Object.values(built.scripts).reduce((sum, script) => sum + script.gzipBytes, 0);

    expect(firstLoad).toBeLessThanOrEqual(150 * 1024);
    expect(everything).toBeGreaterThan(firstLoad);
  });
});
