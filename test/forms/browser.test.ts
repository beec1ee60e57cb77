/**
 * The hosted form page in a real browser: Debian's headless Chromium driven by
 * playwright-core, against the local API server. Skipped, with a message, only
 * on a developer machine without /usr/bin/chromium; in CI (which installs it)
 * a missing browser fails the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { request, startApi } from '../support/api.ts';
import { closeBrowsers, newPage, openBrowser, skipWithoutChromium } from '../support/browser.ts';
import { createSender, uniqueAddress } from '../sending/support.ts';
import { confirmationLink, createForm, submit, accountWithForm } from './support.ts';

const skip = skipWithoutChromium('hosted-form');

const FIELDS = [
  { id: 'email', type: 'email', label: 'Email', required: true },
  { id: 'name', type: 'text', label: 'Name' },
  { id: 'plan', type: 'select', label: 'Plan', options: ['Free', 'Pro'] },
  { id: 'topics', type: 'checkbox', label: 'Topics', options: ['News', 'Offers'] },
  { id: 'score', type: 'rating', label: 'How likely are you to recommend us?' },
  { id: 'birthday', type: 'date', label: 'Birthday' },
  { id: 'cv', type: 'file', label: 'CV' },
];

let withScript: BrowserContext;
let withoutScript: BrowserContext;
let base: string;

beforeAll(async () => {
  if (skip) return;
  base = (await startApi()).url;
  [withScript, withoutScript] = await Promise.all([openBrowser({ javaScriptEnabled: true }), openBrowser({ javaScriptEnabled: false })]);
});

afterAll(closeBrowsers);

async function publishedForm(overrides: Record<string, unknown> = {}) {
  return accountWithForm({ title: 'Join the beta', fields: FIELDS, settings: { successMessage: 'Thanks, you are on the list!' }, ...overrides });
}

/** Arrange: a published form (FIELDS unless `overrides` say otherwise) open in a new page of `context`. */
async function openForm(context: BrowserContext, overrides: Record<string, unknown> = {}) {
  const { key, form } = await publishedForm(overrides);
  const { page, problems } = await newPage(context);
  await page.goto(`${base}/f/${form.slug}`);
  return { key, form, page, problems };
}

async function submissionsOf(key: string, formId: string) {
  return (await request('GET', `/api/forms/${formId}/submissions`, { key })).body.submissions;
}

describe.skipIf(skip)('hosted form page in Chromium', () => {
  it('fills and submits the form with JavaScript, shows the success message in place, and the API has the submission', async () => {
    const { key, form, page, problems } = await openForm(withScript);

    await page.getByLabel('Email').fill('ann@example.com');
    await page.getByLabel('Name').fill('Ann');
    await page.getByLabel('Plan').selectOption('Pro');
    await page.getByLabel('News').check();
    await page.getByLabel('Offers').check();
    await page.getByRole('group', { name: 'How likely are you to recommend us?' }).getByLabel('4').check();
    await page.getByLabel('Birthday').fill('1990-05-17');
    await page.getByLabel('CV').setInputFiles({ name: 'cv.txt', mimeType: 'text/plain', buffer: Buffer.from('my cv') });
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect.poll(() => page.locator('#form-status').isVisible()).toBe(true);
    expect(await page.locator('#form-status').textContent()).toBe('Thanks, you are on the list!');
    expect(await page.locator('#postlane-form').isHidden()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/f/${form.slug}`);
    expect(problems).toEqual([]);
    const [submission] = await submissionsOf(key, form.id);
    expect(submission.data).toEqual({
      email: 'ann@example.com',
      name: 'Ann',
      plan: 'Pro',
      topics: ['News', 'Offers'],
      score: 4,
      birthday: '1990-05-17',
      cv: { filename: 'cv.txt', contentType: 'text/plain', content: Buffer.from('my cv').toString('base64'), size: 5 },
    });
    await page.close();
  });

  it("shows the server's field error beside the field and stores nothing", async () => {
    const { key, form, page } = await openForm(withScript);

    // The browser's own check accepts `ann@localhost`; the API wants a domain with a dot.
    await page.getByLabel('Email').fill('ann@localhost');
    await page.getByRole('button', { name: 'Submit' }).click();

    const error = page.locator('#f-email-error');
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await error.textContent()).toBe('Must be a valid email address');
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Email').evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
    expect(await submissionsOf(key, form.id)).toEqual([]);
    await page.close();
  });

  it('validates in the browser before sending: a required field left empty, a phone pattern, a required checkbox group', async () => {
    const { key, form, page } = await openForm(withScript, {
      fields: [
        { id: 'email', type: 'email', label: 'Email', required: true },
        { id: 'phone', type: 'phone', label: 'Phone' },
        { id: 'topics', type: 'checkbox', label: 'Topics', options: ['News', 'Offers'], required: true },
      ],
    });
    // ValidityState does not serialise: copy the flags out inside the page.
    const validity = (label: string) =>
      page.getByLabel(label).evaluate((input) => {
        const { valueMissing, patternMismatch } = (input as unknown as { validity: { valueMissing: boolean; patternMismatch: boolean } }).validity;
        return { valueMissing, patternMismatch };
      });

    await page.getByRole('button', { name: 'Submit' }).click();
    const emailMissing = (await validity('Email')).valueMissing;
    await page.getByLabel('Phone').fill('call me');
    const badPhone = (await validity('Phone')).patternMismatch;
    await page.getByLabel('Phone').fill('+1 (555) 010-0000');
    const goodPhone = (await validity('Phone')).patternMismatch;
    await page.getByLabel('Email').fill('ann@example.com');
    await page.getByRole('button', { name: 'Submit' }).click();

    expect(emailMissing).toBe(true);
    expect(badPhone).toBe(true);
    expect(goodPhone).toBe(false);
    await expect.poll(() => page.locator('#f-topics-error').textContent()).toBe('Choose at least one option');
    expect(await submissionsOf(key, form.id)).toEqual([]);
    await page.close();
  });

  it('works without JavaScript as a plain form post: the success page, then field errors', async () => {
    const { key, form, page } = await openForm(withoutScript);

    await page.getByLabel('Email').fill('ann@localhost');
    await page.getByLabel('Name').fill('Ann <b>');
    await page.getByLabel('News').check();
    await Promise.all([page.waitForURL(`**/api/forms/${form.slug}/submit`), page.getByRole('button', { name: 'Submit' }).click()]);

    expect(await page.locator('#f-email-error').textContent()).toBe('Must be a valid email address');
    expect(await page.getByLabel('Name').inputValue()).toBe('Ann <b>');
    expect(await page.getByLabel('News').isChecked()).toBe(true);
    expect(await submissionsOf(key, form.id)).toEqual([]);

    await page.getByLabel('Email').fill('ann@example.com');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Submit' }).click()]);
    await expect.poll(() => page.locator('#form-status').textContent()).toBe('Thanks, you are on the list!');

    const [submission] = await submissionsOf(key, form.id);
    expect(submission.data).toEqual({ email: 'ann@example.com', name: 'Ann <b>', topics: ['News'] });
    await page.close();
  });

  it("confirms a double opt-in subscription with the link page's button, without JavaScript; opening the link alone confirms nothing", async () => {
    const sender = await createSender();
    const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Beta' } })).body.data.id;
    const form = await createForm(sender.key, { audienceId, settings: { doubleOptIn: true } });
    const email = uniqueAddress('browser');
    await submit(form.id, { email });
    const statusOf = async () =>
      (await request('GET', `/api/contacts/email/${encodeURIComponent(email)}?audienceId=${audienceId}`, { key: sender.key })).body.data.status;
    const { page, problems } = await newPage(withoutScript);

    await page.goto(`${base}${await confirmationLink(sender, email)}`);
    const heading = await page.getByRole('heading').textContent();
    const beforePress = await statusOf();
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Confirm subscription' }).click()]);

    expect(heading).toBe('Confirm your subscription');
    expect(beforePress).toBe('pending');
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('You are subscribed');
    expect(await statusOf()).toBe('subscribed');
    expect(problems).toEqual([]);
    await page.close();
  });
});
