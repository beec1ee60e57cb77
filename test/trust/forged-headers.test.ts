/**
 * Links are built from the configured public base URL, never from what a
 * request says about where it was sent (docs/api.md, "Unsubscribe and preferences"; docs/operations.md, PUBLIC_BASE_URL):
 * an anonymous client choosing `Host` or `X-Forwarded-Proto` must not choose
 * the host or scheme of a link mailed from the account's own domain.
 */
import { describe, expect, it } from 'vitest';
import { invoke } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { createForm, submit } from '../forms/support.ts';

const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };
const FORGED_CONTEXT = { domainName: 'evil.example', domainPrefix: 'evil' };
const BASE = process.env.PUBLIC_BASE_URL!;

/** Every http(s) or javascript: URL in a text. */
function linksIn(text: string): string[] {
  return [...text.matchAll(/(?:https?|javascript):[^\s"'<>]+/g)].map(([url]) => url);
}

describe('links under forged Host and X-Forwarded-* headers', () => {
  it('a sent message carries links and List-Unsubscribe on the configured base only', async () => {
    const sender = await createSender();
    const to = uniqueAddress('forged');

    const result = await invoke('email/send', {
      headers: { ...FORGED, 'x-api-key': sender.key, 'content-type': 'application/json' },
      requestContext: FORGED_CONTEXT,
      body: JSON.stringify({
        from: sender.from,
        recipients: [to],
        subject: 'Hi',
        content: '<p><a href="{{unsubscribeUrl}}">Leave</a> <a href="{{preferencesUrl}}">Prefs</a></p>',
      }),
    });

    expect(result.statusCode).toBe(200);
    const [email] = await storedEmails(sender.domain);
    const links = [...linksIn(email!.body.html!), ...linksIn(email!.body.text!), ...linksIn(JSON.stringify(email!.headers ?? []))];
    expect(links.length).toBeGreaterThanOrEqual(4);
    for (const link of links) expect(link.startsWith(`${BASE}/`), link).toBe(true);
    expect(JSON.stringify(email)).not.toContain('evil.example');
  });

  it('a double opt-in confirmation mailed to an anonymous submitter links to the configured base only', async () => {
    const sender = await createSender();
    const audience = await invoke('audiences/create', {
      headers: { 'x-api-key': sender.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Forged' }),
    });
    const audienceId = JSON.parse(String(audience.body)).data.id;
    const form = await createForm(sender.key, { audienceId, settings: { doubleOptIn: true, from: sender.from } });
    const email = uniqueAddress('optin');

    const submitted = await submit(form.id, { email }, { headers: FORGED });

    expect(submitted.status).toBe(200);
    const [confirmation] = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(email));
    const links = [...linksIn(confirmation!.body.html!), ...linksIn(confirmation!.body.text!)];
    expect(links.some((link) => link.includes('/confirm/'))).toBe(true);
    for (const link of links) expect(link.startsWith(`${BASE}/`), link).toBe(true);
  });

  it('a form listing names its hosted page on the configured base', async () => {
    const sender = await createSender();
    const form = await createForm(sender.key);

    const listed = await invoke('forms/list', { headers: { ...FORGED, 'x-api-key': sender.key }, requestContext: FORGED_CONTEXT });

    const item = JSON.parse(String(listed.body)).forms.find((candidate: { id: string }) => candidate.id === form.id);
    expect(item.publishedUrl).toBe(`${BASE}/f/${form.slug}`);
  });
});
