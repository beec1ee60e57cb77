/**
 * Every page of the dashboard, in the navigation order of the product
 * (Overview, Emails, Broadcasts, Templates, Audiences, Forms, Domains, API
 * keys, Webhooks, Team). Each page is its own chunk, loaded when opened.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Role } from './session.ts';

export interface PageProps {
  params: Record<string, string>;
}

export interface RouteEntry {
  path: string;
  page: LazyExoticComponent<ComponentType<PageProps>>;
  /** Shown in the navigation under this name; detail pages have none. */
  nav?: string;
  /** The roles that see the page; the API refuses the others anyway (403). */
  roles: readonly Role[];
}

const everyone: readonly Role[] = ['admin', 'member'];
const admins: readonly Role[] = ['admin'];

const overview = lazy(() => import('./pages/overview/page.tsx'));
const emails = lazy(() => import('./pages/emails/page.tsx'));
const email = lazy(() => import('./pages/emails/email-page.tsx'));
const templates = lazy(() => import('./pages/templates/page.tsx'));
const template = lazy(() => import('./pages/templates/builder-page.tsx'));
const audiences = lazy(() => import('./pages/audiences/page.tsx'));
const audience = lazy(() => import('./pages/audiences/audience-page.tsx'));
const contact = lazy(() => import('./pages/audiences/contact-page.tsx'));
const domains = lazy(() => import('./pages/domains/page.tsx'));
const domain = lazy(() => import('./pages/domains/domain-page.tsx'));
const apiKeys = lazy(() => import('./pages/api-keys/page.tsx'));
const webhooks = lazy(() => import('./pages/webhooks/page.tsx'));
const webhook = lazy(() => import('./pages/webhooks/webhook-page.tsx'));
const team = lazy(() => import('./pages/team/page.tsx'));
const suppressions = lazy(() => import('./pages/suppressions/page.tsx'));
const broadcasts = lazy(() => import('./pages/broadcasts/page.tsx'));
const newBroadcast = lazy(() => import('./pages/broadcasts/new-page.tsx'));
const broadcast = lazy(() => import('./pages/broadcasts/broadcast-page.tsx'));
const forms = lazy(() => import('./pages/forms/page.tsx'));
const form = lazy(() => import('./pages/forms/builder-page.tsx'));
const submissions = lazy(() => import('./pages/forms/submissions-page.tsx'));

export const ROUTES: readonly RouteEntry[] = [
  { path: '/', nav: 'Overview', page: overview, roles: everyone },
  { path: '/emails', nav: 'Emails', page: emails, roles: everyone },
  { path: '/emails/:id', page: email, roles: everyone },
  // Not in the navigation (its order is the product's): linked from the Emails page's header.
  { path: '/suppressions', page: suppressions, roles: everyone },
  { path: '/broadcasts', nav: 'Broadcasts', page: broadcasts, roles: everyone },
  // Before `:id`, which would take `new` for an id.
  { path: '/broadcasts/new', page: newBroadcast, roles: everyone },
  { path: '/broadcasts/:id', page: broadcast, roles: everyone },
  { path: '/templates', nav: 'Templates', page: templates, roles: everyone },
  // `/templates/new` is this page too, with nothing saved yet.
  { path: '/templates/:id', page: template, roles: everyone },
  { path: '/audiences', nav: 'Audiences', page: audiences, roles: everyone },
  { path: '/audiences/:id', page: audience, roles: everyone },
  { path: '/audiences/:id/contacts/:contactId', page: contact, roles: everyone },
  { path: '/forms', nav: 'Forms', page: forms, roles: everyone },
  // `/forms/new` is the builder too, with nothing saved yet.
  { path: '/forms/:id', page: form, roles: everyone },
  { path: '/forms/:id/submissions', page: submissions, roles: everyone },
  { path: '/domains', nav: 'Domains', page: domains, roles: admins },
  { path: '/domains/:id', page: domain, roles: admins },
  { path: '/api-keys', nav: 'API keys', page: apiKeys, roles: admins },
  // The API lets members manage webhooks, but an endpoint's signing secret is an admin's to hand out.
  { path: '/webhooks', nav: 'Webhooks', page: webhooks, roles: admins },
  { path: '/webhooks/:id', page: webhook, roles: admins },
  { path: '/team', nav: 'Team', page: team, roles: admins },
];
