/**
 * The shell of the service's public HTML pages (unsubscribe, preferences):
 * one small self-contained document, no scripts, no external assets, readable
 * on a phone, and nothing that would leak the signed link in the address bar.
 */
import { escapeHtml } from '#shared/platform/html.ts';
import { html, type Reply } from './reply.ts';

/**
 * - CSP: no scripts, images or frames, forms post only back here;
 * - no-referrer: the page's URL carries the recipient's token;
 * - no-store and noindex: the page shows an address and must not be cached or listed.
 * Set here, not by @middy/http-security-headers: its defaults (sandbox, trusted
 * types, report-to, HSTS, ...) would each need turning off, and it orders CSP directives by its own list.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
  'X-Content-Type-Options': 'nosniff',
} as const;

const STYLE = `
body{margin:0;background:#f4f4f5;color:#18181b;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:32rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px}
h1{font-size:1.5rem;margin:0 0 1rem}
p{margin:0 0 1rem}
ul{list-style:none;margin:0 0 1.5rem;padding:0}
li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;padding:.75rem 0;border-top:1px solid #e4e4e7}
form{margin:0}
button{font:inherit;padding:.6rem 1.1rem;border:0;border-radius:6px;background:#18181b;color:#fff;cursor:pointer;min-height:44px}
button.secondary{background:#e4e4e7;color:#18181b}
button:focus-visible,a:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
a{color:#1d4ed8}
.status{color:#52525b;font-size:.9rem}
.notice{padding:.75rem;border-radius:6px;background:#ecfdf5;color:#065f46}
.notice.error{background:#fef2f2;color:#991b1b}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:34rem){main{margin:0;border-radius:0;min-height:100vh}}
`.trim();

/**
 * A whole page. `body` is markup the caller built, with every value in it
 * already passed through escapeHtml; `title` is escaped here.
 */
export function htmlPage(title: string, body: string, status = 200): Reply {
  const markup = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  const reply = html(markup, status);
  return { ...reply, headers: { ...reply.headers, ...PAGE_HEADERS } };
}
