/**
 * `npm run screenshots [-- --url http://127.0.0.1:3000 --ses http://127.0.0.1:8005]`:
 * the pictures of docs/dashboard.md and the README, taken from the running
 * `npm start` so they never drift from the product. Signs in as the local
 * admin (admin@example.com) with the code the SES emulator stored and, through
 * the API as a person or a client would, gives the account something to show:
 * audiences of named contacts, templates, broadcasts (one sent to the mailbox
 * simulator, one scheduled, one draft), forms with submissions, suppressions,
 * a second domain, keys, webhook endpoints (one delivering to a receiver this
 * script runs for the length of the run) and team members. What already
 * exists under the same name is reused, so a second run against a kept table
 * adds only a few emails. Then it takes every page at 1440 pixels wide (the
 * Overview, an email and a broadcast's results at 375 too) into docs/images/. Uses
 * Debian's Chromium (/usr/bin/chromium), as the tests do.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { chromium, type Locator, type Page } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: `http://127.0.0.1:${process.env.PORT ?? 3000}` },
    ses: { type: 'string', default: `http://127.0.0.1:${process.env.SES_PORT ?? 8005}` },
    admin: { type: 'string', default: 'admin@example.com' },
    out: { type: 'string', default: 'docs/images' },
  },
  strict: true,
});
const API = args.url.replace(/\/$/, '');
const ORIGIN = new URL(API).origin;
const SIMULATOR = 'simulator.amazonses.com';
const FROM_DOMAIN = 'example.com';

function fail(message: string): never {
  console.error(`screenshots: ${message}`);
  process.exit(1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

interface Call {
  cookie?: string;
  key?: string;
  body?: unknown;
}

async function api(method: string, path: string, options: Call = {}) {
  const response = await fetch(`${API}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.cookie ? { cookie: options.cookie, origin: ORIGIN } : {}),
      ...(options.key ? { 'x-api-key': options.key } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body = (await response.json()) as any;
  if (!response.ok) fail(`${method} ${path} answered ${response.status}: ${body.message ?? JSON.stringify(body)}`);
  return { body, response };
}

/** The newest sign-in code the emulator holds for the address. */
async function newestCode(address: string, after: number): Promise<string> {
  return until('the sign-in code', async () => {
    const { emails } = (await (await fetch(`${args.ses}/store`)).json()) as { emails: { destination: { to: string[] }; body: { text?: string } }[] };
    const mine = emails.filter((email) => email.destination.to.includes(address));
    if (mine.length <= after) return undefined;
    return /\b(\d{6})\b/.exec(mine.at(-1)!.body.text ?? '')?.[1];
  });
}

async function inboxSize(address: string): Promise<number> {
  const { emails } = (await (await fetch(`${args.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
  return emails.filter((email) => email.destination.to.includes(address)).length;
}

async function signIn(): Promise<string> {
  const before = await inboxSize(args.admin);
  await api('POST', '/api/session/code', { body: { email: args.admin } });
  const code = await newestCode(args.admin, before);
  const { response } = await api('POST', '/api/session', { body: { email: args.admin, code } });
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
  if (!cookie) fail('signing in set no cookie');
  return cookie;
}

/**
 * The item of a list whose `field` equals `value`, made with `create` when
 * there is none; so a second run reuses what the first one made.
 */
async function ensure(
  cookie: string,
  list: string,
  items: string,
  field: string,
  value: string,
  create: () => Promise<{ id: string }>,
): Promise<{ id: string; created: boolean }> {
  const { body } = await api('GET', list, { cookie });
  const found = (body[items] as Record<string, unknown>[]).find((item) => item[field] === value);
  if (found) return { id: found.id as string, created: false };
  return { ...(await create()), created: true };
}

async function created(cookie: string, path: string, body: unknown): Promise<{ id: string }> {
  return (await api('POST', path, { cookie, body })).body.data as { id: string };
}

const PEOPLE = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Linus', 'Torvalds'],
  ['Margaret', 'Hamilton'],
  ['Tim', 'Berners-Lee'],
  ['Radia', 'Perlman'],
  ['Dennis', 'Ritchie'],
  ['Barbara', 'Liskov'],
  ['Ken', 'Thompson'],
  ['Frances', 'Allen'],
  ['John', 'McCarthy'],
  ['Hedy', 'Lamarr'],
  ['Donald', 'Knuth'],
  ['Shafi', 'Goldwasser'],
  ['Edsger', 'Dijkstra'],
  ['Annie', 'Easley'],
  ['Niklaus', 'Wirth'],
  ['Sophie', 'Wilson'],
  ['Guido', 'van Rossum'],
  ['Adele', 'Goldberg'],
  ['Bjarne', 'Stroustrup'],
  ['Mary', 'Jackson'],
  ['Ward', 'Cunningham'],
  ['Evelyn', 'Berezin'],
  ['Vint', 'Cerf'],
  ['Jean', 'Sammet'],
] as const;
const CITIES = ['London', 'Paris', 'Berlin', 'Lisbon', 'Amsterdam', 'Dublin', 'Madrid'] as const;
const MAIL_DOMAINS = ['example.org', 'example.net', 'mail.example.org'] as const;

function addressOf(first: string, last: string, at: number): string {
  const local = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
  return `${local}@${MAIL_DOMAINS[at % MAIL_DOMAINS.length]}`;
}

/** The newsletter's readers: mostly subscribed, tagged, with a plan, a city and a year. */
function newsletterContacts() {
  return PEOPLE.map(([firstName, lastName], at) => ({
    email: addressOf(firstName, lastName, at),
    firstName,
    lastName,
    status: at % 11 === 7 ? 'unsubscribed' : at % 13 === 9 ? 'pending' : at === 26 ? 'bounced' : 'subscribed',
    tags: ['newsletter', ...(at % 4 === 0 ? ['vip'] : []), ...(at % 3 === 1 ? ['customer'] : []), ...(at % 5 === 2 ? ['beta'] : [])],
    customFields: { plan: at % 3 === 1 ? 'pro' : 'free', city: CITIES[at % CITIES.length]!, since: 2019 + (at % 7) },
  }));
}

/**
 * The early-access list lives at the mailbox simulator, so a broadcast to it
 * gets SES's answers: one bounce among 120, which keeps the account's bounce
 * rate under the Overview's 4% (a complaint would need some 340 sends to stay
 * under 0.3%, so there is none).
 */
function earlyAccessContacts() {
  return Array.from({ length: 120 }, (_, at) => {
    const [firstName, lastName] = PEOPLE[at % PEOPLE.length]!;
    const mailbox = at === 47 ? 'bounce' : 'success';
    return { email: `${mailbox}+${firstName.toLowerCase()}-${at}@${SIMULATOR}`, firstName, lastName, tags: ['early-access'] };
  });
}

async function audience(cookie: string, name: string, description: string, contacts: unknown[]): Promise<string> {
  const made = await ensure(cookie, '/api/audiences?limit=100', 'audiences', 'name', name, () => created(cookie, '/api/audiences', { name, description }));
  if (made.created && contacts.length > 0) await api('POST', '/api/contacts/bulk', { cookie, body: { audienceId: made.id, contacts } });
  return made.id;
}

const WELCOME = {
  name: 'Welcome email',
  subject: 'Welcome to Acme, {{firstName|"friend"}}!',
  components: [
    { type: 'heading', content: 'Welcome aboard, {{firstName|"friend"}}', level: 1, styles: { color: '#111827', textAlign: 'left' } },
    {
      type: 'text',
      content:
        'Thanks for signing up for the <strong>{{plan}}</strong> plan. Your workspace is ready: invite your team, connect a domain and send your first email.',
    },
    {
      type: 'button',
      label: 'Open your workspace',
      url: 'https://app.example.com/start?ref={{ref}}',
      styles: { backgroundColor: '#4f46e5', color: '#ffffff' },
    },
    {
      type: 'text',
      content: 'Questions? Reply to this email; a person reads every answer.<br><a href="{{unsubscribeUrl}}">Unsubscribe</a>',
      styles: { fontSize: 12, color: '#6b7280' },
    },
  ],
};

const TEMPLATES = [
  {
    name: 'Password reset',
    subject: 'Reset your Acme password',
    components: [
      { type: 'heading', content: 'Reset your password', level: 1 },
      { type: 'text', content: 'Someone (we hope you) asked to reset the password of {{email}}. The link works for one hour.' },
      { type: 'button', label: 'Choose a new password', url: 'https://app.example.com/reset?token={{token}}' },
    ],
  },
  {
    name: 'Order receipt',
    subject: 'Your receipt for order #{{orderNumber}}',
    components: [
      { type: 'heading', content: 'Thank you for your order', level: 1 },
      { type: 'text', content: 'Order #{{orderNumber}}, {{total}}, paid on {{paidOn}}.' },
    ],
  },
  {
    name: 'Monthly newsletter',
    subject: 'What is new at Acme this month',
    components: [
      { type: 'heading', content: 'This month at Acme', level: 1 },
      { type: 'text', content: 'Faster imports, a new form builder and scheduled broadcasts.' },
      { type: 'button', label: 'Read the changelog', url: 'https://example.com/changelog' },
    ],
  },
  WELCOME,
];

const FORM_FIELDS = [
  { id: 'email', type: 'email', label: 'Email address', required: true, placeholder: 'you@example.com' },
  { id: 'firstName', type: 'text', label: 'First name' },
  { id: 'interests', type: 'checkbox', label: 'What would you like to hear about?', options: ['Product updates', 'Events', 'Engineering blog'] },
  { id: 'frequency', type: 'select', label: 'How often?', options: ['Weekly', 'Monthly'] },
];

/** A week ahead at 09:00 UTC: the scheduled broadcast's time. */
function nextWeek(): string {
  const at = new Date(Date.now() + 7 * 86_400_000);
  at.setUTCHours(9, 0, 0, 0);
  return at.toISOString();
}

interface Seeded {
  newsletter: string;
  contact: string;
  template: string;
  draft: string;
  sent: string;
  form: string;
  domain: string;
  webhook: string;
  email: string;
}

/**
 * A receiver for the webhook endpoint while the script runs: 200 to every
 * delivery but `email.bounced`, which it answers 503 as a receiver that is
 * down for one kind of event would, so the page shows a retry too.
 */
async function startReceiver(): Promise<{ url: string; close: () => void }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const refused = Buffer.concat(chunks).toString().includes('"email.bounced"');
      response.writeHead(refused ? 503 : 200, { 'content-type': 'application/json' }).end(refused ? '{"error":"unavailable"}' : '{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/postlane`, close: () => server.close() };
}

async function webhooks(cookie: string, receiverUrl: string): Promise<string> {
  // The receiver's port changes with every run: an endpoint of an earlier run would only fail.
  const { body } = await api('GET', '/api/webhooks', { cookie });
  for (const old of body.webhooks as { id: string; url: string }[]) {
    if (old.url.endsWith('/hooks/postlane') && old.url.startsWith('http://127.0.0.1:')) await api('DELETE', `/api/webhooks/${old.id}`, { cookie });
  }
  const made = await created(cookie, '/api/webhooks', { url: receiverUrl, events: ['*'] });
  return made.id;
}

/** An endpoint of a CRM, limited to contact events, disabled for the holidays (and so never tried from here). */
async function disabledWebhook(cookie: string): Promise<void> {
  const url = 'https://crm.example.net/hooks/postlane';
  const made = await ensure(cookie, '/api/webhooks', 'webhooks', 'url', url, () =>
    created(cookie, '/api/webhooks', { url, events: ['contact.created', 'contact.updated', 'contact.unsubscribed', 'form.submitted'] }),
  );
  if (made.created) await api('PATCH', `/api/webhooks/${made.id}`, { cookie, body: { enabled: false } });
}

/** A few emails with a story to tell: delivered and bounced; returns the receipt's id. */
async function sendSamples(cookie: string): Promise<string> {
  const { body: key } = await api('POST', '/api/api-keys', { cookie, body: { name: 'Screenshots', permission: 'sending', env: 'live' } });
  // A label per run: an address that bounced once is suppressed, and a second run would be refused.
  const run = Date.now().toString(36);
  const samples = [
    { to: `success+welcome-${run}@${SIMULATOR}`, subject: 'Welcome to Acme, Ada' },
    { to: `success+receipt-${run}@${SIMULATOR}`, subject: 'Your receipt for order #1042' },
    { to: `success+digest-${run}@${SIMULATOR}`, subject: 'Your weekly digest' },
    { to: `bounce+reset-${run}@${SIMULATOR}`, subject: 'Reset your password' },
    { to: `success+invite-${run}@${SIMULATOR}`, subject: 'Grace invited you to the Design team' },
  ];
  try {
    for (const sample of samples) {
      await api('POST', '/api/email/send', {
        key: key.data.key,
        body: {
          from: `Acme <hello@${FROM_DOMAIN}>`,
          recipients: [sample.to],
          subject: sample.subject,
          content: `<p>${sample.subject}.</p><p><a href="https://example.com/account">Open your account</a></p>`,
          tracking: { opens: true, clicks: true },
        },
      });
    }
  } finally {
    await api('DELETE', `/api/api-keys/${key.data.id}`, { cookie });
  }
  // The send answers with tracking ids; the message log, newest first, has the receipt's.
  const { body } = await api('GET', '/api/emails?limit=10', { cookie });
  const receipt = (body.emails as { id: string; subject: string }[]).find((one) => one.subject.startsWith('Your receipt'))?.id;
  if (!receipt) fail('the receipt is not in the message log');
  return receipt;
}

async function seed(cookie: string, receiverUrl: string): Promise<Seeded> {
  const webhook = await webhooks(cookie, receiverUrl);

  const newsletter = await audience(cookie, 'Newsletter', 'Readers of the monthly newsletter, from the website and the sign-up form', newsletterContacts());
  const earlyAccess = await audience(cookie, 'Early access', 'People who asked to try new features first', earlyAccessContacts());
  await audience(
    cookie,
    'Customers',
    'Paying accounts, synced nightly from billing',
    newsletterContacts().filter((one) => one.tags.includes('customer')),
  );
  await audience(cookie, 'Webinar attendees', 'Everyone who registered for a webinar', []);
  const { body: ada } = await api('GET', `/api/contacts/email/${encodeURIComponent(addressOf('Ada', 'Lovelace', 0))}?audienceId=${newsletter}`, { cookie });

  const templates = new Map<string, string>();
  for (const one of TEMPLATES) {
    templates.set(one.name, (await ensure(cookie, '/api/templates?limit=100', 'templates', 'name', one.name, () => created(cookie, '/api/templates', one))).id);
  }

  const from = `Acme <news@${FROM_DOMAIN}>`;
  const tracking = { opens: true, clicks: true };
  const content =
    '<h1>What is new at Acme</h1><p>Hello {{firstName|"there"}}, here is what shipped this month.</p><p><a href="https://example.com/changelog">Read the changelog</a></p>';
  const sent = await ensure(cookie, '/api/broadcasts?limit=100', 'broadcasts', 'name', 'Early access: scheduled broadcasts', () =>
    created(cookie, '/api/broadcasts', {
      name: 'Early access: scheduled broadcasts',
      audienceId: earlyAccess,
      from,
      subject: 'Try scheduled broadcasts before anyone else',
      content,
      tracking,
    }),
  );
  if (sent.created) await api('POST', `/api/broadcasts/${sent.id}/send`, { cookie, body: {} });
  const scheduled = await ensure(cookie, '/api/broadcasts?limit=100', 'broadcasts', 'name', 'Black Friday preview', () =>
    created(cookie, '/api/broadcasts', {
      name: 'Black Friday preview',
      audienceId: newsletter,
      segment: { tags: ['vip'] },
      from,
      subject: 'Your early look at our Black Friday offers',
      content,
      tracking,
    }),
  );
  if (scheduled.created) await api('POST', `/api/broadcasts/${scheduled.id}/send`, { cookie, body: { scheduledAt: nextWeek() } });
  const draft = await ensure(cookie, '/api/broadcasts?limit=100', 'broadcasts', 'name', 'December newsletter', () =>
    created(cookie, '/api/broadcasts', {
      name: 'December newsletter',
      audienceId: newsletter,
      segment: { anyTags: ['customer', 'beta'], customFields: { plan: 'pro' } },
      from,
      subject: 'December at Acme: the year in review',
      templateId: templates.get('Monthly newsletter'),
      tracking,
    }),
  );

  const form = await ensure(cookie, '/api/forms?limit=100', 'forms', 'title', 'Newsletter sign-up', () =>
    created(cookie, '/api/forms', {
      title: 'Newsletter sign-up',
      description: 'One email a month about what we shipped. No spam, unsubscribe anytime.',
      slug: 'newsletter',
      published: true,
      fields: FORM_FIELDS,
      audienceId: newsletter,
      settings: { successMessage: 'Thanks! See you in your inbox.', storeResponses: true },
      appearance: { primaryColor: '#4f46e5' },
      buttonCustomization: { text: 'Subscribe', variant: 'filled' },
    }),
  );
  if (form.created) {
    // People who opened the hosted page; about one in three signs up.
    for (let view = 0; view < 34; view += 1) await fetch(`${API}/f/newsletter`);
    const submitters = PEOPLE.slice(8, 20);
    for (const [at, [firstName, lastName]] of submitters.entries()) {
      await api('POST', `/api/forms/${form.id}/submit`, {
        body: {
          email: addressOf(firstName, lastName, at + 8),
          firstName,
          interests: at % 3 === 0 ? ['Product updates', 'Engineering blog'] : at % 3 === 1 ? ['Events'] : ['Product updates'],
          frequency: at % 2 === 0 ? 'Monthly' : 'Weekly',
        },
      });
    }
  }
  const webinar = await ensure(cookie, '/api/forms?limit=100', 'forms', 'title', 'Webinar registration', () =>
    created(cookie, '/api/forms', {
      title: 'Webinar registration',
      slug: 'webinar-december',
      published: true,
      fields: [
        { id: 'email', type: 'email', label: 'Work email', required: true },
        { id: 'company', type: 'text', label: 'Company' },
        { id: 'role', type: 'radio', label: 'Your role', options: ['Engineering', 'Marketing', 'Other'] },
      ],
      settings: { successMessage: 'You are registered; the link follows by email.' },
    }),
  );
  if (webinar.created) {
    for (let view = 0; view < 9; view += 1) await fetch(`${API}/f/webinar-december`);
    for (const [email, company, role] of [
      ['priya.raman@example.com', 'Northwind', 'Engineering'],
      ['tom.becker@example.net', 'Contoso', 'Marketing'],
      ['lena.fischer@example.org', 'Fabrikam', 'Other'],
    ] as const) {
      await api('POST', `/api/forms/${webinar.id}/submit`, { body: { email, company, role } });
    }
  }
  await ensure(cookie, '/api/forms?limit=100', 'forms', 'title', 'Customer feedback', () =>
    created(cookie, '/api/forms', {
      title: 'Customer feedback',
      fields: [
        { id: 'rating', type: 'rating', label: 'How likely are you to recommend Acme?', required: true },
        { id: 'comments', type: 'textarea', label: 'What could we do better?' },
      ],
    }),
  );

  const { body: suppressed } = await api('GET', '/api/suppressions?limit=100', { cookie });
  const manual = ['old.billing@example.net', 'jordan.miles@example.org', 'press@example.com'].filter(
    (email) => !(suppressed.suppressions as { email: string }[]).some((one) => one.email === email),
  );
  if (manual.length > 0) await api('POST', '/api/suppressions', { cookie, body: { emails: manual } });

  const domain = await ensure(cookie, '/api/domains', 'domains', 'domain', 'mail.acme-example.org', () =>
    created(cookie, '/api/domains', { domain: 'mail.acme-example.org' }),
  );

  for (const key of [
    { name: 'Production server', permission: 'full', env: 'live' },
    { name: 'Marketing site', permission: 'sending', env: 'live', domain: FROM_DOMAIN },
    { name: 'CI', permission: 'full', env: 'test' },
  ]) {
    await ensure(cookie, '/api/api-keys', 'keys', 'name', key.name, () => created(cookie, '/api/api-keys', key));
  }

  for (const person of [
    { email: 'grace@example.com', role: 'member' },
    { email: 'alan@example.com', role: 'admin' },
    { email: 'katherine@example.com', role: 'member' },
  ]) {
    await ensure(cookie, '/api/team', 'members', 'email', person.email, () => created(cookie, '/api/team', person));
  }

  // Before the samples, so the Overview's latest emails are theirs and not the broadcast's.
  await until(
    'the broadcast to finish',
    async () => {
      const { body } = await api('GET', `/api/broadcasts/${sent.id}`, { cookie });
      return body.data.status === 'sent' ? true : undefined;
    },
    120_000,
  );
  const email = await sendSamples(cookie);
  await disabledWebhook(cookie);
  return {
    newsletter,
    contact: ada.data.id,
    template: templates.get(WELCOME.name)!,
    draft: draft.id,
    sent: sent.id,
    form: form.id,
    domain: domain.id,
    webhook,
    email,
  };
}

/** A CSV as people export them from a spreadsheet: headers in their own words, a tag list, a custom column. */
const IMPORT_CSV = [
  'Email Address,First Name,Last Name,Company,Tags,Seats',
  'marie.curie@example.org,Marie,Curie,Radium Labs,"customer, vip",12',
  'nikola.tesla@example.net,Nikola,Tesla,Wardenclyffe,beta,3',
  'rosalind.franklin@example.org,Rosalind,Franklin,King’s College,customer,8',
  'carl.sagan@example.com,Carl,Sagan,Pale Blue Dot,,1',
  'lise.meitner@example.org,Lise,Meitner,Fission Inc,"beta; customer",5',
  'richard.feynman@example.net,Richard,Feynman,Caltech,,2',
].join('\n');

async function settle(page: Page, ready: Locator): Promise<void> {
  await ready.first().waitFor();
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
  // Strings, as the page's code: this project's types have no DOM.
  await page.waitForFunction("!document.body.textContent.includes('Loading…')");
  await sleep(400);
}

async function main(): Promise<void> {
  if (!(await fetch(`${API}/app/`).catch(() => undefined))?.ok) fail(`no dashboard at ${API}/app/: start the local stack with npm start first`);
  const cookie = await signIn();
  const receiver = await startReceiver();
  try {
    const seeded = await seed(cookie, receiver.url);
    // The mailbox simulator answers within a second or two; the pages should show those answers.
    await until('the delivery events', async () => {
      const { body } = await api('GET', `/api/emails/${seeded.email}`, { cookie });
      return body.data.status === 'delivered' ? true : undefined;
    });
    await api('POST', `/api/webhooks/${seeded.webhook}/test`, { cookie });
    await sleep(3_000);
    await shoot(cookie, seeded);
  } finally {
    receiver.close();
  }
}

async function shoot(cookie: string, seeded: Seeded): Promise<void> {
  mkdirSync(args.out, { recursive: true });
  const written: string[] = [];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext({ deviceScaleFactor: 1 });
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: API }]);
    const page = await context.newPage();
    // A builder with changes asks before the next page opens (beforeunload): the script moves on.
    page.on('dialog', (dialog) => void dialog.accept());
    const table = (label: string) => page.getByRole('group', { name: label }).getByRole('table');
    const heading = (text: string | RegExp) => page.getByRole('heading', { name: text });

    /**
     * Opens the path, waits for `ready` and for nothing to be loading, and
     * takes the whole page, its top `maxHeight` pixels (a long list or form
     * says what it is in its first screens), or `part` of it.
     */
    async function shot(
      file: string,
      path: string,
      ready: (page: Page) => Locator,
      options: { width?: number; part?: () => Locator; maxHeight?: number; before?: () => Promise<void> } = {},
    ) {
      const width = options.width ?? 1440;
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      await page.goto(`${API}/app${path}`);
      await settle(page, ready(page));
      await options.before?.();
      const target = `${args.out}/${file}-${width}.png`;
      if (options.part) {
        // A margin around the part, so its edges do not touch the picture's.
        // The box is the viewport's, the clip of a full-page picture the page's: they differ by the scroll.
        const box = (await options.part().boundingBox())!;
        const scroll = await page.evaluate<{ x: number; y: number }>('({ x: window.scrollX, y: window.scrollY })');
        const margin = 16;
        await page.screenshot({
          path: target,
          fullPage: true,
          clip: {
            x: Math.max(0, box.x + scroll.x - margin),
            y: Math.max(0, box.y + scroll.y - margin),
            width: box.width + 2 * margin,
            height: box.height + 2 * margin,
          },
        });
      } else if (options.maxHeight) {
        const height = Math.min(options.maxHeight, await page.evaluate<number>('document.documentElement.scrollHeight'));
        await page.screenshot({ path: target, fullPage: true, clip: { x: 0, y: 0, width, height } });
      } else await page.screenshot({ path: target, fullPage: true });
      written.push(target);
    }

    for (const width of [1440, 375]) {
      await shot('overview', '/', () => table('The latest emails'), { width });
      await shot('email', `/emails/${encodeURIComponent(seeded.email)}`, () => page.getByRole('list').filter({ hasText: 'Delivered' }), {
        width,
        // The content's frame, with the receipt's HTML in it (the page shows what the email held).
        before: () => page.frameLocator('iframe').locator('body').filter({ hasText: /\S/ }).waitFor(),
      });
      await shot('broadcast-results', `/broadcasts/${seeded.sent}`, () => page.locator('dl.results'), { width });
    }
    await shot('audience', `/audiences/${seeded.newsletter}`, () => table('Contacts'), { maxHeight: 1500 });
    await shot('audiences', '/audiences', () => table('Your audiences'));
    await shot('contact', `/audiences/${seeded.newsletter}/contacts/${seeded.contact}`, () => heading('Change'));
    await shot('import', `/audiences/${seeded.newsletter}`, () => table('Contacts'), {
      before: async () => {
        await page.getByLabel('CSV file').setInputFiles({ name: 'crm-export.csv', mimeType: 'text/csv', buffer: Buffer.from(IMPORT_CSV) });
        await table('Preview of the first rows').waitFor();
        await page.getByRole('button', { name: 'Text Type of “Seats”' }).click();
        await page.getByRole('option', { name: 'Number' }).click();
        await page.getByRole('button', { name: 'Number Type of “Seats”' }).blur();
        await sleep(300);
      },
      part: () => page.locator('section').filter({ has: heading('Import from CSV') }),
    });
    await shot('templates', '/templates', () => table('Your templates'));
    const preview = page.frameLocator('iframe[title="Preview of the email"]').locator('body');
    await shot('template', `/templates/${seeded.template}`, () => preview.filter({ hasText: /\S/ }), {
      // Sample values, as a person types them to see the email as a reader will.
      before: async () => {
        for (const [name, value] of [
          ['firstName', 'Ada'],
          ['plan', 'Pro'],
          ['ref', 'welcome'],
        ]) {
          await page.getByRole('textbox', { name, exact: true }).fill(value!);
        }
        await preview.filter({ hasText: 'Welcome aboard, Ada' }).waitFor();
        await page.getByRole('textbox', { name: 'ref', exact: true }).blur();
        await sleep(300);
      },
    });
    await shot('broadcasts', '/broadcasts', () => table('Broadcasts, newest first'));
    await shot('broadcast-draft', `/broadcasts/${seeded.draft}`, () => page.getByText(/recipient/i));
    await shot('forms', '/forms', () => table('Your forms'));
    await shot('form', `/forms/${seeded.form}`, () => heading('Publish'), { maxHeight: 1900 });
    await shot('submissions', `/forms/${seeded.form}/submissions`, () => table('Submissions, newest first'));
    await shot('suppressions', '/suppressions', () => table('Suppressed addresses'));
    await shot('domains', '/domains', () => table('Your domains'));
    await shot('domain', `/domains/${seeded.domain}`, () => page.getByRole('group', { name: /^DNS records/ }));
    await shot('api-keys', '/api-keys', () => table('API keys, newest first'));
    await shot('webhooks', '/webhooks', () => table('Webhook endpoints'));
    await shot('webhook', `/webhooks/${seeded.webhook}`, () => table('Deliveries, newest first'), { maxHeight: 1000 });
    await shot('team', '/team', () => table('Members of this account'));
  } finally {
    await browser.close();
  }
  console.log(`wrote ${written.length} pictures: ${written.join(', ')}`);
}

await main();
