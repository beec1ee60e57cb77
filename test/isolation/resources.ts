/**
 * One owned resource per kind a path parameter can name (the contract's
 * `params`), so every route gets a valid call on something an account owns:
 * the kind's fixture fills the path, the contract's example is the body. The
 * isolation suite points another account at these calls; the fuzz suite
 * bends them. A new route on an existing kind of resource needs nothing here;
 * a path parameter without a kind fails both suites.
 */
import { request } from '../support/api.ts';
import { urlEncoded } from '../fuzz/arbitraries.ts';
import { createSender, uniqueAddress, type Sender } from '../sending/support.ts';
import { confirmationUrl } from '#shared/forms/confirmation-links.ts';
import { recordEvent } from '#shared/events/service.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import * as v from 'valibot';
import { randomBase62 } from '#shared/platform/ids.ts';
import type { Route } from '#shared/platform/http/routes.ts';
import type { Endpoint, ResourceKind } from '#shared/platform/http/contract.ts';
import { addMember } from '#shared/accounts/members.ts';
import { signedInCookie } from '../people/support.ts';

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
    return this.once(
      'template',
      async () =>
        (
          await created(this.key, '/api/templates', {
            name: 'Owned',
            subject: 'Hello {{name}}',
            components: [{ type: 'text', content: 'Hi {{name}}' }],
          })
        ).data,
    );
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
      const sent = await created(this.key, '/api/transactional/send', {
        from: this.sender.from,
        to: uniqueAddress(),
        subject: 'Owned',
        content: '<p>Owned</p>',
      });
      return { id: sent.emailId };
    });
  }

  form(): Promise<{ id: string; slug: string }> {
    return this.once('form', async () => {
      const { id: audienceId } = await this.audience();
      return (
        await created(this.key, '/api/forms', {
          title: 'Owned form',
          published: true,
          audienceId,
          fields: [{ id: 'email', type: 'email', label: 'Email', required: true }],
        })
      ).data;
    });
  }

  /** A webhook endpoint; its URL is never called (the routes only queue deliveries). */
  webhook(): Promise<{ id: string }> {
    return this.once('webhook', async () => (await created(this.key, '/api/webhooks', { url: 'http://127.0.0.1:9/owned', events: ['*'] })).data);
  }

  /** A delivery of the owned webhook: its test event's. */
  delivery(): Promise<{ id: string }> {
    return this.once('delivery', async () => (await created(this.key, `/api/webhooks/${(await this.webhook()).id}/test`, undefined)).data);
  }

  /**
   * An event of the account, recorded through the domain: no route of this
   * branch produces one yet (sends and contact changes will, issue 18).
   */
  event(): Promise<{ id: string }> {
    return this.once('event', async () => {
      const { event } = await recordEvent(
        this.accountId,
        { type: 'contact.created', data: { email: this.contactEmail }, sourceKey: `owned:${this.accountId}` },
        Date.now(),
      );
      return event;
    });
  }

  /** An API key of its own, made over the API, so that calls that disable or revoke it leave the owner's key working. */
  apiKey(): Promise<{ id: string }> {
    return this.once('apiKey', async () => (await created(this.key, '/api/api-keys', { name: 'Owned' })).data);
  }

  /** An address on the account's suppression list, put there over the API. */
  /** An export of the owned audience (written within its request: the audience is small). */
  audienceExport(): Promise<{ id: string }> {
    return this.once('audienceExport', async () => (await created(this.key, `/api/audiences/${(await this.audience()).id}/exports`, undefined)).data);
  }

  suppressedEmail(): Promise<string> {
    return this.once('suppressedEmail', async () => {
      const email = uniqueAddress('suppressed');
      await created(this.key, '/api/suppressions', { emails: [email] });
      return email;
    });
  }

  /** A draft broadcast to the owned audience, from the owner's verified sender. */
  broadcast(): Promise<{ id: string }> {
    return this.once('broadcast', async () => {
      const { id: audienceId } = await this.audience();
      return (await created(this.key, '/api/broadcasts', { audienceId, from: this.sender.from, subject: 'Owned', content: '<p>Owned</p>' })).data;
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

  /**
   * The Cookie header of a signed-in admin of the account, signed in as a
   * person does (a code, then POST /api/session's work), without the mail.
   */
  session(): Promise<string> {
    return this.once('session', () => this.signIn());
  }

  /** A new session of another admin of the account, each call: for a call that ends the session it is made with (signing out). */
  async signIn(): Promise<string> {
    return (await signedInCookie(this.accountId)).cookie;
  }

  /** Another member of the team (role member), added as the operator adds one. */
  member(): Promise<{ id: string; email: string }> {
    return this.once('member', async () => {
      const email = uniqueAddress('teammate');
      const added = await addMember(this.accountId, { email, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
      return { id: added!.memberId, email };
    });
  }

  /** Every id, address and slug the owner's resources carry: none may show in another account's answers. */
  async identifiers(): Promise<string[]> {
    const [audience, contact, template, domain, email, form, webhook, delivery, event, broadcast, member, apiKey, suppressedEmail] = await Promise.all([
      this.audience(),
      this.contact(),
      this.template(),
      this.domain(),
      this.email(),
      this.form(),
      this.webhook(),
      this.delivery(),
      this.event(),
      this.broadcast(),
      this.member(),
      this.apiKey(),
      this.suppressedEmail(),
    ]);
    return [
      this.accountId,
      audience.id,
      contact.id,
      contact.email,
      template.id,
      domain.id,
      this.sender.domain,
      email.id,
      form.id,
      form.slug,
      webhook.id,
      delivery.id,
      event.id,
      broadcast.id,
      member.id,
      member.email,
      apiKey.id,
      suppressedEmail,
    ];
  }
}

/** A path parameter's value naming the owner's resource of one kind, and the query the route needs beside it. */
type KindFixture = (owner: Owner) => Promise<{ value: string; query?: string }>;

const idOf =
  (make: (owner: Owner) => Promise<{ id: string }>): KindFixture =>
  async (owner) => ({ value: (await make(owner)).id });

/** One fixture per kind of resource a path names. */
export const KIND_FIXTURES: Record<ResourceKind, KindFixture> = {
  audience: idOf((owner) => owner.audience()),
  contact: idOf((owner) => owner.contact()),
  // The address names a contact only within an audience.
  contactEmail: async (owner) => {
    const owned = await owner.contact();
    return { value: owned.email, query: `audienceId=${encodeURIComponent(owned.audienceId)}` };
  },
  template: idOf((owner) => owner.template()),
  broadcast: idOf((owner) => owner.broadcast()),
  domain: idOf((owner) => owner.domain()),
  email: idOf((owner) => owner.email()),
  form: idOf((owner) => owner.form()),
  formSlug: async (owner) => ({ value: (await owner.form()).slug }),
  subscriptionToken: async (owner) => ({ value: await owner.token() }),
  confirmationToken: async (owner) => ({ value: await owner.confirmationToken() }),
  webhook: idOf((owner) => owner.webhook()),
  delivery: idOf((owner) => owner.delivery()),
  member: idOf((owner) => owner.member()),
  apiKey: idOf((owner) => owner.apiKey()),
  suppressedEmail: async (owner) => ({ value: await owner.suppressedEmail() }),
  audienceExport: idOf((owner) => owner.audienceExport()),
};

type Fixture = (owner: Owner) => Promise<RouteCall>;

/** A valid call of a route with a path parameter, from its contract; throws for a parameter whose kind the contract does not name. */
export function fixtureOf(route: Pick<Endpoint, 'method' | 'path' | 'params' | 'example'>): Fixture {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const unnamed = names.filter((name) => !route.params?.[name]);
  if (unnamed.length > 0) throw new Error(`${routeKey(route)}: its contract's \`params\` does not say what ${unnamed.join(', ')} names`);
  return async (owner) => {
    const filled = await Promise.all(names.map(async (name) => [name, await KIND_FIXTURES[route.params![name]!](owner)] as const));
    const query = filled
      .map(([, fixture]) => fixture.query)
      .filter(Boolean)
      .join('&');
    return {
      params: Object.fromEntries(filled.map(([name, fixture]) => [name, fixture.value])),
      ...(query ? { query } : {}),
      ...(route.example === undefined ? {} : { body: route.example }),
    };
  };
}

/** Body fields that name a resource of the caller's account. */
export const REFERENCE_FIELDS = ['audienceId', 'templateId'] as const;

/** The body fields of a route's schema, or none. */
function bodyFields(route: Pick<Endpoint, 'request'>): Record<string, unknown> {
  return (route.request.body as { entries?: Record<string, unknown> } | undefined)?.entries ?? {};
}

/** The reference fields a route's body takes: those that accept an id (an immutable one refuses every value and names nothing). */
export function referenceFieldsOf(route: Pick<Endpoint, 'request'>): (typeof REFERENCE_FIELDS)[number][] {
  const entries = bodyFields(route) as Record<string, v.GenericSchema>;
  return REFERENCE_FIELDS.filter((field) => entries[field] && v.safeParse(entries[field], 'aud_0VbdqWvOrCa87kCC3Lnd').success);
}

/**
 * A call by `caller` of a route whose body may name an audience or a
 * template, valid but for naming the owner's: the contract's example, sent
 * from the caller's verified sender to fresh addresses, with each reference
 * field set to the owner's resource (a template replaces inline content), and
 * the path on the caller's own resources.
 */
export async function referenceCall(
  route: Pick<Endpoint, 'method' | 'path' | 'params' | 'example' | 'request'>,
  owner: Owner,
  caller: Owner,
): Promise<RouteCall> {
  const call = hasPathParameter(route) ? await fixtureOf(route)(caller) : { params: {} };
  const fields = bodyFields(route);
  // A key the first call stores would answer the second, about an unknown id, with IDEMPOTENCY_KEY_REUSED.
  const { idempotencyKey: _, ...body }: Record<string, unknown> = { ...route.example };
  if ('from' in fields) body.from = caller.sender.from;
  for (const field of ['to', 'email'] as const) if (typeof body[field] === 'string') body[field] = uniqueAddress();
  if (Array.isArray(body.recipients)) body.recipients = [uniqueAddress()];
  const references = referenceFieldsOf(route);
  if (references.includes('audienceId')) body.audienceId = (await owner.audience()).id;
  if (references.includes('templateId')) {
    body.templateId = (await owner.template()).id;
    delete body.content;
  }
  return { ...call, body };
}
