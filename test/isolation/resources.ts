/**
 * One owned resource behind every route with a path parameter: for each such
 * route, how to make a valid call of it on something an account owns. The
 * isolation suite points another account at these calls; the fuzz suite
 * bends them. A route with a path parameter and no entry here fails both
 * suites, so a new route cannot go untested by them.
 */
import { request } from '../support/api.ts';
import { urlEncoded } from '../fuzz/arbitraries.ts';
import { createSender, uniqueAddress, type Sender } from '../sending/support.ts';
import { confirmationUrl } from '#shared/domain/confirmation-links.ts';
import { subscriptionLinks } from '#shared/domain/subscription-links.ts';
import { randomBase62 } from '#shared/ids.ts';
import type { Route } from '#shared/http/routes.ts';

/** A valid call of a route, on resources its owner made. */
export interface RouteCall {
  params: Record<string, string>;
  /** Raw query string, without `?`. */
  query?: string;
  body?: unknown;
}

export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** `/api/contacts/{id}` with `{id: 'con_…'}` gives `/api/contacts/con_…`, each value URL-encoded. */
export function pathOf(route: Pick<Route, 'path'>, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => urlEncoded(params[name] ?? ''));
}

export function hasPathParameter(route: Pick<Route, 'path'>): boolean {
  return route.path.includes('{');
}

async function created(key: string, path: string, body: unknown): Promise<any> {
  const response = await request('POST', path, { key, body });
  if (response.status !== 201 && response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The last segment of a signed link: its token. */
function tokenOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.split('/').pop()!);
}

/**
 * An account with one of everything, each made over the API on first use:
 * an audience with a contact, a template, a verified domain, a sent email and
 * a published form, plus the contact's signed links.
 */
export class Owner {
  private readonly cache = new Map<string, Promise<any>>();
  readonly contactEmail = uniqueAddress('owned');

  private constructor(readonly sender: Sender) {}

  static async create(): Promise<Owner> {
    return new Owner(await createSender());
  }

  get key(): string {
    return this.sender.key;
  }

  get accountId(): string {
    return this.sender.accountId;
  }

  private once<T>(name: string, make: () => Promise<T>): Promise<T> {
    let made = this.cache.get(name);
    if (!made) {
      made = make();
      this.cache.set(name, made);
    }
    return made as Promise<T>;
  }

  audience(): Promise<{ id: string }> {
    return this.once('audience', async () => (await created(this.key, '/api/audiences', { name: `Owned ${randomBase62(6)}` })).data);
  }

  contact(): Promise<{ id: string; email: string; audienceId: string }> {
    return this.once('contact', async () => {
      const { id: audienceId } = await this.audience();
      return (await created(this.key, '/api/contacts', { email: this.contactEmail, audienceId, firstName: 'Owned' })).data;
    });
  }

  template(): Promise<{ id: string }> {
    return this.once('template', async () => (await created(this.key, '/api/templates', {
      name: 'Owned',
      subject: 'Hello {{name}}',
      components: [{ type: 'text', content: 'Hi {{name}}' }],
    })).data);
  }

  domain(): Promise<{ id: string }> {
    return this.once('domain', async () => {
      const response = await request('GET', '/api/domains', { key: this.key });
      const domain = response.body.domains?.find((item: { domain: string }) => item.domain === this.sender.domain);
      if (!domain) throw new Error(`the sender domain is not listed: ${JSON.stringify(response.body)}`);
      return domain;
    });
  }

  email(): Promise<{ id: string }> {
    return this.once('email', async () => {
      const sent = await created(this.key, '/api/transactional/send', { from: this.sender.from, to: uniqueAddress(), subject: 'Owned', content: '<p>Owned</p>' });
      return { id: sent.emailId };
    });
  }

  form(): Promise<{ id: string; slug: string }> {
    return this.once('form', async () => {
      const { id: audienceId } = await this.audience();
      return (await created(this.key, '/api/forms', {
        title: 'Owned form',
        published: true,
        audienceId,
        fields: [{ id: 'email', type: 'email', label: 'Email', required: true }],
      })).data;
    });
  }

  /** The signed token of the owned contact's unsubscribe and preference links. */
  token(): Promise<string> {
    return this.once('token', async () => {
      await this.contact();
      return tokenOf((await subscriptionLinks(this.accountId, this.contactEmail)).unsubscribeUrl);
    });
  }

  /** The signed token of the double opt-in link of the owned contact, its audience and the owned form. */
  confirmationToken(): Promise<string> {
    return this.once('confirmationToken', async () => {
      const [{ audienceId }, form] = await Promise.all([this.contact(), this.form()]);
      return tokenOf(await confirmationUrl({ accountId: this.accountId, email: this.contactEmail, audienceId, formId: form.id, issuedAt: new Date() }));
    });
  }

  /** Every id, address and slug the owner's resources carry: none may show in another account's answers. */
  async identifiers(): Promise<string[]> {
    const [audience, contact, template, domain, email, form] = await Promise.all([
      this.audience(), this.contact(), this.template(), this.domain(), this.email(), this.form(),
    ]);
    return [audience.id, contact.id, contact.email, template.id, domain.id, this.sender.domain, email.id, form.id, form.slug];
  }
}

type Fixture = (owner: Owner) => Promise<RouteCall>;

const byId = (make: (owner: Owner) => Promise<{ id: string }>, body?: unknown): Fixture =>
  async (owner) => ({ params: { id: (await make(owner)).id }, ...(body === undefined ? {} : { body }) });

const audience = (owner: Owner) => owner.audience();
const contact = (owner: Owner) => owner.contact();
const template = (owner: Owner) => owner.template();
const form = (owner: Owner) => owner.form();
const bySlug: Fixture = async (owner) => ({ params: { slug: (await owner.form()).slug } });
const byConfirmationToken: Fixture = async (owner) => ({ params: { token: await owner.confirmationToken() } });
const byToken = (body?: unknown): Fixture => async (owner) => ({ params: { token: await owner.token() }, ...(body === undefined ? {} : { body }) });

/** Every route with a path parameter, keyed `METHOD /path/{param}`. */
export const ROUTE_FIXTURES: Record<string, Fixture> = {
  'GET /api/audiences/{id}': byId(audience),
  'GET /api/audiences/{id}/stats': byId(audience),
  'PATCH /api/audiences/{id}': byId(audience, { name: 'Renamed' }),
  'DELETE /api/audiences/{id}': byId(audience),
  'GET /api/contacts/email/{email}': async (owner) => {
    const owned = await owner.contact();
    return { params: { email: owned.email }, query: `audienceId=${encodeURIComponent(owned.audienceId)}` };
  },
  'GET /api/contacts/{id}': byId(contact),
  'PATCH /api/contacts/{id}': byId(contact, { firstName: 'Renamed' }),
  'DELETE /api/contacts/{id}': byId(contact),
  'GET /api/templates/{id}': byId(template),
  'PATCH /api/templates/{id}': byId(template, { name: 'Renamed' }),
  'DELETE /api/templates/{id}': byId(template),
  'POST /api/templates/{id}/render': byId(template, { variables: { name: 'Ana' } }),
  'GET /api/domains/{id}': byId((owner) => owner.domain()),
  'GET /api/emails/{id}': byId((owner) => owner.email()),
  'GET /api/forms/{id}': byId(form),
  'PATCH /api/forms/{id}': byId(form, { title: 'Renamed' }),
  'DELETE /api/forms/{id}': byId(form),
  'GET /api/forms/{id}/submissions': byId(form),
  'POST /api/forms/{id}/submit': byId(form, { email: 'someone@example.org' }),
  'GET /api/forms/public/{slug}': bySlug,
  'GET /f/{slug}': bySlug,
  'GET /unsubscribe/{token}': byToken(),
  'POST /unsubscribe/{token}': byToken(),
  'GET /preferences/{token}': byToken(),
  'POST /preferences/{token}': byToken({ status: 'unsubscribed' }),
  'GET /confirm/{token}': byConfirmationToken,
  'POST /confirm/{token}': byConfirmationToken,
};

/** The fixture of a route with a path parameter; throws for a route nobody wrote one for. */
export function fixtureOf(route: Pick<Route, 'method' | 'path'>): Fixture {
  const fixture = ROUTE_FIXTURES[routeKey(route)];
  if (!fixture) throw new Error(`${routeKey(route)} has a path parameter but no entry in test/isolation/resources.ts ROUTE_FIXTURES`);
  return fixture;
}

/** Body fields that name a resource of the caller's account. */
export const REFERENCE_FIELDS = ['audienceId', 'templateId'] as const;

type Reference = (owner: Owner, caller: Owner) => Promise<RouteCall>;

const otpWithTemplate: Reference = async (owner, caller) => ({
  params: {},
  body: { from: caller.sender.from, to: uniqueAddress(), code: '123456', templateId: (await owner.template()).id },
});

/**
 * Every route whose body may name an audience or a template: a call by
 * `caller` that is valid but for naming the owner's resource.
 */
export const BODY_REFERENCES: Record<string, Reference> = {
  'POST /api/contacts': async (owner) => ({ params: {}, body: { email: uniqueAddress(), audienceId: (await owner.audience()).id } }),
  'POST /api/contacts/bulk': async (owner) => ({ params: {}, body: { audienceId: (await owner.audience()).id, contacts: [{ email: uniqueAddress() }] } }),
  'POST /api/forms': async (owner) => ({
    params: {},
    body: { title: 'Theirs', audienceId: (await owner.audience()).id, fields: [{ id: 'email', type: 'email', label: 'Email' }] },
  }),
  'PATCH /api/forms/{id}': async (owner, caller) => ({ params: { id: (await caller.form()).id }, body: { audienceId: (await owner.audience()).id } }),
  'POST /api/email/send': async (owner, caller) => ({
    params: {},
    body: { from: caller.sender.from, recipients: [uniqueAddress()], subject: 'Hi', templateId: (await owner.template()).id },
  }),
  'POST /api/otp/send': otpWithTemplate,
  'POST /api/otp': otpWithTemplate,
  'POST /preferences/{token}': async (owner, caller) => ({ params: { token: await caller.token() }, body: { audienceId: (await owner.audience()).id, status: 'unsubscribed' } }),
  'POST /api/transactional/send': async (owner, caller) => ({
    params: {},
    body: { from: caller.sender.from, to: uniqueAddress(), templateId: (await owner.template()).id },
  }),
};
