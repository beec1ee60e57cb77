/**
 * Client-side routing under /app/: the browser's history is the only state, so
 * a reload, a bookmark or a link someone sent opens the same page. A few
 * dozen lines instead of a router package: the dashboard has a fixed table of
 * flat routes (routes.tsx) and needs no nested layouts or loaders.
 */
import { useSyncExternalStore } from 'react';

/** Served under this path on the API's origin (dev/local/dashboard.ts, the stack's distribution). */
export const BASE = '/app';

const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', notify);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `/emails/em_1?status=bounced` from `/app/emails/em_1?status=bounced`: the path within the dashboard, with its query. */
function current(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : window.location.pathname;
  return `${path === '' ? '/' : path}${window.location.search}`;
}

/** The page's path within the dashboard and its query, re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams; href: string } {
  const href = useSyncExternalStore(subscribe, current);
  const [path = '/', search = ''] = href.split('?');
  return { path, query: new URLSearchParams(search), href };
}

/** The address of a dashboard path, as links and the history carry it: `/emails` is `/app/emails`. */
export function appHref(to: string): string {
  return to.startsWith(BASE) ? to : `${BASE}${to === '/' ? '/' : to}`;
}

/** Goes to a dashboard path; `replace` when the current entry should not stay in the history (filters, redirects). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const href = appHref(to);
  if (href === `${window.location.pathname}${window.location.search}`) return;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  notify();
}

/** Matches `/emails/em_1` against `/emails/:id`; the parameters, or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const value = have[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}
