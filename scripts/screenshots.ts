/**
 * `npm run screenshots [-- --url http://127.0.0.1:3000 --ses http://127.0.0.1:8005]`:
 * the pictures of docs/dashboard.md and the README, taken from the running
 * `npm start` so they never drift from the product. Signs in as the local admin
 * (admin@example.com) with the code the SES emulator stored, makes a key
 * through the API as a person would, sends a few emails to the mailbox
 * simulator (delivered, bounced, opened), waits for their events, then takes
 * the Overview and an email's page at 1440 and 375 pixels wide into
 * docs/images/. Uses Debian's Chromium (/usr/bin/chromium), as the tests do.
 */
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

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
const WIDTHS = [1440, 375] as const;
const SIMULATOR = 'simulator.amazonses.com';

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

async function api(method: string, path: string, options: { cookie?: string; key?: string; body?: unknown } = {}) {
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

/** A few emails with a story to tell: delivered and opened, bounced, complained. */
async function sendSamples(cookie: string): Promise<void> {
  const { body: created } = await api('POST', '/api/api-keys', { cookie, body: { name: 'Screenshots', permission: 'sending', env: 'live' } });
  const key = created.data.key as string;
  // A label per run: an address that bounced once is suppressed, and a second run would be refused.
  const run = Date.now().toString(36);
  const samples = [
    { to: `success+welcome-${run}@${SIMULATOR}`, subject: 'Welcome to Acme, Ada' },
    { to: `success+receipt-${run}@${SIMULATOR}`, subject: 'Your receipt for order #1042' },
    { to: `success+digest-${run}@${SIMULATOR}`, subject: 'Your weekly digest' },
    { to: `bounce+reset-${run}@${SIMULATOR}`, subject: 'Reset your password' },
    { to: `success+invite-${run}@${SIMULATOR}`, subject: 'Grace invited you to the Design team' },
  ];
  for (const sample of samples) {
    await api('POST', '/api/email/send', {
      key,
      body: {
        from: 'Acme <hello@example.com>',
        recipients: [sample.to],
        subject: sample.subject,
        content: `<p>${sample.subject}.</p><p><a href="https://example.com/account">Open your account</a></p>`,
        tracking: { opens: true, clicks: true },
      },
    });
  }
  await api('DELETE', `/api/api-keys/${created.data.id}`, { cookie });
}

async function main(): Promise<void> {
  if (!(await fetch(`${API}/app/`).catch(() => undefined))?.ok) fail(`no dashboard at ${API}/app/: start the local stack with npm start first`);
  const cookie = await signIn();
  await sendSamples(cookie);
  const { body: latest } = await api('GET', '/api/emails?limit=5', { cookie });
  const emailId = latest.emails.find((email: { subject: string }) => email.subject.startsWith('Your receipt'))?.id as string;
  // The mailbox simulator answers within a second or two; the Overview should show those answers.
  await until('the delivery events', async () => {
    const { body } = await api('GET', `/api/emails/${emailId}`, { cookie });
    return body.data.status === 'delivered' ? true : undefined;
  });
  await sleep(2_000);

  mkdirSync(args.out, { recursive: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext({ deviceScaleFactor: 1 });
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: API }]);
    const page = await context.newPage();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      await page.goto(`${API}/app/`);
      await page.getByRole('heading', { name: 'Latest emails' }).waitFor();
      await page.getByRole('table', { name: 'The latest emails' }).waitFor();
      await sleep(300);
      await page.screenshot({ path: `${args.out}/overview-${width}.png`, fullPage: true });
      await page.goto(`${API}/app/emails/${encodeURIComponent(emailId)}`);
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await page.getByRole('list').filter({ hasText: 'Delivered' }).waitFor();
      // The content's frame, with the receipt's HTML in it (the page shows what the email held).
      await page.frameLocator('iframe').locator('body').filter({ hasText: /\S/ }).waitFor();
      await sleep(300);
      await page.screenshot({ path: `${args.out}/email-${width}.png`, fullPage: true });
    }
  } finally {
    await browser.close();
  }
  console.log(`wrote ${WIDTHS.flatMap((width) => [`overview-${width}.png`, `email-${width}.png`]).join(', ')} in ${args.out}/`);
}

await main();
