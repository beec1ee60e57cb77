/**
 * The session cookie: `HttpOnly` (no script reads it), `SameSite=Strict` (no
 * other site's page sends it), `Path=/`, and under an https public base URL
 * `Secure` with the `__Host-` prefix, which browsers accept only from a
 * secure origin, for the whole host and no Domain, so no sibling subdomain
 * can set or shadow it. The value is the session's token; the table keeps
 * only its hash.
 */
import { publicBase } from '#shared/platform/public-urls.ts';
import { SESSION_LIFETIME_MS } from './sessions.ts';

const NAME = 'postlane_session';

function secure(): boolean {
  return new URL(publicBase()).protocol === 'https:';
}

/** `__Host-postlane_session` over https, else `postlane_session`. */
export function sessionCookieName(): string {
  return secure() ? `__Host-${NAME}` : NAME;
}

function withAttributes(value: string, maxAgeSeconds: number): string {
  return [`${sessionCookieName()}=${value}`, `Max-Age=${maxAgeSeconds}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure() ? ['Secure'] : [])].join('; ');
}

/** The Set-Cookie of a new session, kept by the browser as long as the session may last. */
export function sessionCookie(token: string): string {
  return withAttributes(token, SESSION_LIFETIME_MS / 1000);
}

/** The Set-Cookie that removes it (signing out). */
export function clearedSessionCookie(): string {
  return withAttributes('', 0);
}

/** The session token among a request's cookies (API Gateway's `cookies`, `name=value` each), if any. */
export function sessionTokenOf(cookies: readonly string[] | undefined): string | undefined {
  const name = sessionCookieName();
  for (const cookie of cookies ?? []) {
    const separator = cookie.indexOf('=');
    if (separator > 0 && cookie.slice(0, separator).trim() === name) {
      const value = cookie.slice(separator + 1).trim();
      if (value !== '') return value;
    }
  }
  return undefined;
}
