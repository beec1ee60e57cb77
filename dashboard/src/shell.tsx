/**
 * The frame of every signed-in page: a skip link, the account menu, the
 * navigation (the pages the person's role may open) and the page itself.
 */
import { lazy, Suspense, useState } from 'react';
import { AppLink } from './ui/app-link.tsx';
import { PageBoundary, Splash } from './ui/boundary.tsx';
import { matchPath, useLocation } from './router.ts';
import { ROUTES, type RouteEntry } from './routes.tsx';
import { roleOf, type Session } from './session.ts';
import { AccountMenuButton } from './account-menu-button.tsx';

const NotFound = lazy(() => import('./pages/not-found.tsx'));

function findRoute(path: string, session: Session): { route: RouteEntry; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params && route.roles.includes(roleOf(session))) return { route, params };
  }
  return undefined;
}

/** The navigation entry a path belongs to: `/emails/em_1` is under Emails. */
function isCurrent(entry: RouteEntry, path: string): boolean {
  return entry.path === '/' ? path === '/' : path === entry.path || path.startsWith(`${entry.path}/`);
}

export function Shell({ session }: { session: Session }) {
  const { path, href } = useLocation();
  const [navOpen, setNavOpen] = useState(false);
  const found = findRoute(path, session);
  const Page = found?.route.page;
  const entries = ROUTES.filter((route) => route.nav && route.roles.includes(roleOf(session)));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Postlane</span>
        <button type="button" className="button button-quiet nav-toggle" aria-expanded={navOpen} aria-controls="main-nav" onClick={() => setNavOpen(!navOpen)}>
          Menu
        </button>
        <AccountMenuButton session={session} />
      </header>
      <nav id="main-nav" aria-label="Main" className={navOpen ? 'nav nav-open' : 'nav'}>
        <ul>
          {entries.map((entry) => (
            <li key={entry.path}>
              <AppLink href={entry.path} aria-current={isCurrent(entry, path) ? 'page' : undefined} onClick={() => setNavOpen(false)}>
                {entry.nav}
              </AppLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        <PageBoundary resetKey={href}>
          <Suspense fallback={<Splash />}>{Page ? <Page params={found.params} /> : <NotFound />}</Suspense>
        </PageBoundary>
      </main>
    </div>
  );
}
