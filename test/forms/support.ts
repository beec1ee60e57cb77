/**
 * Forms tests: forms made over the API, and submissions sent straight into
 * the submit handler from an address of the test's choosing, so that the
 * per-address limit counts only what a test means it to (every request over
 * the local server comes from 127.0.0.1).
 */
import { randomUUID } from 'node:crypto';
import { createTestAccount } from '../support/accounts.ts';
import { invoke, request } from '../support/api.ts';
import { storedEmails, type Sender } from '../sending/support.ts';

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A valid form body, published (the API defaults to unpublished), with overrides. */
export function formBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Newsletter sign-up',
    published: true,
    fields: [
      { id: 'email', type: 'email', label: 'Email', required: true },
      { id: 'firstName', type: 'text', label: 'First name' },
    ],
    ...overrides,
  };
}

/** Creates a form over HTTP and returns its `data`; fails the test on any other answer. */
export async function createForm(key: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const response = await request('POST', '/api/forms', { key, body: formBody(overrides) });
  if (response.status !== 201) throw new Error(`form not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** A new account with one form in it, for a test that needs nothing else: `const { key, form } = await accountWithForm({ published: false })`. */
export async function accountWithForm(overrides: Record<string, unknown> = {}): Promise<{ key: string; accountId: string; form: any }> {
  const { key, accountId } = await createTestAccount();
  return { key, accountId, form: await createForm(key, overrides) };
}

export interface Submitted {
  status: number;
  headers: Record<string, string | number | boolean>;
  body: any;
}

/**
 * POST /api/forms/{ref}/submit through the handler, from `ip` (one of its own by
 * default). `body` is sent as JSON unless `form` gives URL-encoded text.
 */
export async function submit(ref: string, body: unknown, options: { ip?: string; form?: string; headers?: Record<string, string> } = {}): Promise<Submitted> {
  // Only hashed and counted, so any text unique to the call keeps it clear of other calls' limits.
  const ip = options.ip ?? `test-${randomUUID()}`;
  const payload = options.form ?? JSON.stringify(body);
  const contentType = options.form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json';
  const result = await invoke('forms/submit', {
    pathParameters: { id: ref },
    body: payload,
    headers: { 'content-type': contentType, ...options.headers },
    requestContext: { http: { method: 'POST', path: `/api/forms/${ref}/submit`, protocol: 'HTTP/1.1', sourceIp: ip, userAgent: 'vitest' } },
  });
  const text = String(result.body ?? '');
  const json = /json/.test(String(result.headers?.['Content-Type'] ?? ''));
  return { status: result.statusCode ?? 0, headers: result.headers ?? {}, body: json ? JSON.parse(text) : text };
}

/** The confirmation link of the newest email to `to`, as a path on the local API. */
export async function confirmationLink(sender: Pick<Sender, 'domain'>, to: string): Promise<string> {
  const email = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(to)).at(-1);
  const href = /href="([^"]*\/confirm\/[^"]*)"/.exec(email?.body.html ?? '')?.[1];
  if (!href) throw new Error(`no confirmation link sent to ${to}`);
  const url = new URL(href.replaceAll('&amp;', '&'));
  return `${url.pathname}${url.search}`;
}
