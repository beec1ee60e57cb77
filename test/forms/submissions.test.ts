import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { expectErrorReply } from '../support/arrange.ts';
import { makeRoom } from '../support/clock.ts';
import { insertSubmission } from '#shared/forms/store.ts';
import { admitSubmission, SUBMISSION_RATE_LIMITS } from '#shared/forms/submissions.ts';
import { RateLimitError } from '#shared/platform/errors.ts';
import { forms } from '#functions/forms/contract.ts';
import { newId } from '#shared/platform/ids.ts';
import { createForm, ISO, submit, accountWithForm } from './support.ts';

/** One field of every type the spec lists, none required. */
const EVERY_TYPE = [
  { id: 'name', type: 'text', label: 'Name' },
  { id: 'email', type: 'email', label: 'Email' },
  { id: 'age', type: 'number', label: 'Age' },
  { id: 'message', type: 'textarea', label: 'Message' },
  { id: 'plan', type: 'select', label: 'Plan', options: ['Free', 'Pro'] },
  { id: 'topics', type: 'checkbox', label: 'Topics', options: ['News', 'Offers', 'Events'] },
  { id: 'contact', type: 'radio', label: 'Contact by', options: ['Email', 'Phone'] },
  { id: 'birthday', type: 'date', label: 'Birthday' },
  { id: 'phone', type: 'phone', label: 'Phone' },
  { id: 'cv', type: 'file', label: 'CV' },
  { id: 'score', type: 'rating', label: 'Score' },
];

const FILE = { filename: 'cv.txt', contentType: 'text/plain', content: Buffer.from('hello').toString('base64') };

/** [type, field, value, code, how the test name shows the value]. */
const BAD_VALUES = (
  [
    ['text', 'name', 42, 'VALIDATION_ERROR'],
    ['text', 'name', 'x'.repeat(1001), 'VALIDATION_ERROR', '1,001 characters'],
    ['email', 'email', 'not-an-address', 'INVALID_EMAIL'],
    ['number', 'age', '42', 'VALIDATION_ERROR'],
    ['number', 'age', [1], 'VALIDATION_ERROR'],
    ['textarea', 'message', { text: 'x' }, 'VALIDATION_ERROR'],
    ['textarea', 'message', 'x'.repeat(10_001), 'VALIDATION_ERROR', '10,001 characters'],
    ['select', 'plan', 'Enterprise', 'VALIDATION_ERROR'],
    ['select', 'plan', ['Pro'], 'VALIDATION_ERROR'],
    ['checkbox', 'topics', 'News', 'VALIDATION_ERROR'],
    ['checkbox', 'topics', ['News', 'News'], 'VALIDATION_ERROR'],
    ['radio', 'contact', 'Pigeon', 'VALIDATION_ERROR'],
    ['date', 'birthday', '2026-02-30', 'VALIDATION_ERROR'],
    ['date', 'birthday', '21/11/2026', 'VALIDATION_ERROR'],
    ['phone', 'phone', 'call me', 'VALIDATION_ERROR'],
    ['file', 'cv', 'cv.pdf', 'VALIDATION_ERROR'],
    ['file', 'cv', { ...FILE, content: 'not base64!' }, 'VALIDATION_ERROR'],
    ['file', 'cv', { ...FILE, path: '/etc/passwd' }, 'VALIDATION_ERROR'],
    ['file', 'cv', { ...FILE, filename: '../../x' }, 'VALIDATION_ERROR'],
    ['rating', 'score', 6, 'VALIDATION_ERROR'],
    ['rating', 'score', 0, 'VALIDATION_ERROR'],
    ['rating', 'score', 3.5, 'VALIDATION_ERROR'],
  ] as [string, string, unknown, string, string?][]
).map(([type, field, value, error, shown]) => ({ type, field, value, error, shown: shown ?? JSON.stringify(value) }));

async function everyTypeForm(overrides: Record<string, unknown> = {}) {
  const account = await createTestAccount();
  const form = await createForm(account.key, { fields: EVERY_TYPE, ...overrides });
  return { ...account, form };
}

async function submissionsOf(key: string, formId: string, query = '') {
  return (await request('GET', `/api/forms/${formId}/submissions${query}`, { key })).body;
}

async function analyticsOf(key: string, formId: string) {
  const { forms } = (await request('GET', '/api/forms?limit=100', { key })).body;
  return forms.find((form: { id: string }) => form.id === formId).analytics;
}

describe('form submissions: values by field type', () => {
  it('accepts a value of every type, by id or by slug, and stores it normalised', async () => {
    const { key, form } = await everyTypeForm({ settings: { successMessage: 'Got it!' } });
    const values = {
      name: ' Ann ',
      email: 'Ann@Example.COM',
      age: 42.5,
      message: 'Line one\nLine two',
      plan: 'Pro',
      topics: ['News', 'Events'],
      contact: 'Phone',
      birthday: '1990-02-28',
      phone: '+1 (555) 010-0000',
      cv: FILE,
      score: 5,
    };

    const byId = await submit(form.id, values);
    const bySlug = await submit(form.slug, { email: 'b@example.com' });

    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ success: true, message: 'Got it!', submissionId: expect.stringMatching(/^sub_[0-9A-Za-z]{20}$/) });
    expect(bySlug.status).toBe(200);
    const { submissions, pagination } = await submissionsOf(key, form.id);
    expect(pagination).toEqual({ total: 2, page: 1, limit: 20, pages: 1 });
    expect(submissions[1]).toEqual({
      id: byId.body.submissionId,
      data: { ...values, name: 'Ann', email: 'ann@example.com', cv: { ...FILE, size: 5 } },
      createdAt: expect.stringMatching(ISO),
    });
    expect(submissions[0]).toEqual({ id: bySlug.body.submissionId, data: { email: 'b@example.com' }, createdAt: expect.stringMatching(ISO) });
  });

  it.each(BAD_VALUES)('refuses a bad $type value ($field: $shown) with 422 naming the field, storing nothing', async ({ field, value, error }) => {
    const { key, form } = await everyTypeForm();

    const response = await submit(form.id, { [field]: value });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, error, field: expect.stringMatching(new RegExp(`^${field}(?:$|[.[])`)) });
    expect((await submissionsOf(key, form.id)).pagination.total).toBe(0);
    expect((await analyticsOf(key, form.id)).submissions).toBe(0);
  });

  it('bounds a file field to 200 KB of content', async () => {
    const { form } = await everyTypeForm();
    const content = Buffer.alloc(200 * 1024 + 1).toString('base64');

    const response = await submit(form.id, { cv: { ...FILE, content } });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'cv', message: 'cv: must be at most 200 KB' });
  });

  it('enforces required fields: missing, blank and empty lists are missing', async () => {
    const { key, form } = await accountWithForm({
      fields: [
        { id: 'email', type: 'email', label: 'Email', required: true },
        { id: 'topics', type: 'checkbox', label: 'Topics', options: ['a', 'b'], required: true },
      ],
    });

    const missing = await submit(form.id, { topics: ['a'] });
    const blank = await submit(form.id, { email: '   ', topics: ['a'] });
    const nothingTicked = await submit(form.id, { email: 'a@example.com', topics: [] });
    const nulled = await submit(form.id, { email: null, topics: ['a'] });

    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'email', message: 'email is required' });
    expect(blank.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'email' });
    expect(nothingTicked.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'topics' });
    expect(nulled.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'email' });
    expect((await submissionsOf(key, form.id)).pagination.total).toBe(0);
  });

  it('drops blank optional values instead of storing them', async () => {
    const { key, form } = await everyTypeForm();

    await submit(form.id, { email: 'a@example.com', name: '', topics: [], message: '  ' });

    expect((await submissionsOf(key, form.id)).submissions[0].data).toEqual({ email: 'a@example.com' });
  });

  it('refuses unknown keys with 422 naming the key, and lists every problem in `errors`', async () => {
    const { key, form } = await everyTypeForm();

    const unknown = await submit(form.id, { email: 'a@example.com', isAdmin: true });
    const several = await submit(form.id, { email: 'nope', score: 9, extra: 1 });

    expectErrorReply(unknown, 422, {
      error: 'VALIDATION_ERROR',
      message: 'isAdmin is not a known field',
      field: 'isAdmin',
      errors: [{ field: 'isAdmin', error: 'VALIDATION_ERROR', message: 'isAdmin is not a known field' }],
    });
    expect(several.body).toMatchObject({ error: 'INVALID_EMAIL', field: 'email' });
    expect(several.body.errors.map((error: { field: string }) => error.field)).toEqual(['email', 'score', 'extra']);
    expect((await submissionsOf(key, form.id)).pagination.total).toBe(0);
  });

  it('answers a filled honeypot like a success but stores and counts nothing', async () => {
    const { key, form } = await everyTypeForm();

    const response = await submit(form.id, { email: 'bot@example.com', _hp: 'http://spam.example' });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: 'Thank you! Your submission has been received.', submissionId: expect.stringMatching(/^sub_/) });
    expect((await submissionsOf(key, form.id)).pagination.total).toBe(0);
    expect((await analyticsOf(key, form.id)).submissions).toBe(0);
    expect((await submit(form.id, { email: 'person@example.com', _hp: '' })).status).toBe(200);
    expect((await submissionsOf(key, form.id)).submissions[0].data).toEqual({ email: 'person@example.com' });
  });

  it('with storeResponses false, validates and counts without storing', async () => {
    const { key, form } = await everyTypeForm({ settings: { storeResponses: false } });

    const accepted = await submit(form.id, { email: 'a@example.com' });
    const refused = await submit(form.id, { email: 'nope' });

    expect(accepted.status).toBe(200);
    expect(refused.status).toBe(422);
    expect(await submissionsOf(key, form.id)).toEqual({ success: true, submissions: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } });
    expect((await analyticsOf(key, form.id)).submissions).toBe(1);
  });

  it('answers 404 FORM_NOT_FOUND for unknown and unpublished forms', async () => {
    const { key, form } = await everyTypeForm({ published: false });

    for (const ref of [form.id, form.slug, 'frm_0Vbcs0FZOM1rqYBywxzZ', 'no-such-form', 'Not A Ref']) {
      const response = await submit(ref, { email: 'a@example.com' });
      expect(response.status, ref).toBe(404);
      expect(response.body).toEqual({ success: false, error: 'FORM_NOT_FOUND', message: 'Form not found' });
    }
    await request('PATCH', `/api/forms/${form.id}`, { key, body: { published: true } });
    expect((await submit(form.slug, { email: 'a@example.com' })).status).toBe(200);
  });

  it('bounds the body: 413 PAYLOAD_TOO_LARGE past the limit, 400 for a body that is not an object', async () => {
    const { form } = await accountWithForm();

    const huge = await request('POST', `/api/forms/${form.slug}/submit`, {
      body: { email: 'a@example.com', firstName: 'x'.repeat(forms.submit.maxBodyBytes) },
    });
    const notObject = await request('POST', `/api/forms/${form.slug}/submit`, { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } });
    const wrongType = await request('POST', `/api/forms/${form.slug}/submit`, { rawBody: 'email=a', headers: { 'content-type': 'text/plain' } });

    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toMatchObject({ error: 'INVALID_JSON' });
    expect(wrongType.status).toBe(415);
  });
});

describe('form submissions: plain form posts (no JavaScript)', () => {
  it('reads a URL-encoded post by the field types and answers with the success page', async () => {
    const { key, form } = await everyTypeForm({ settings: { successMessage: 'Merci <3' } });

    const response = await submit(form.slug, undefined, { form: 'email=ann%40example.com&age=30&score=4&topics=News&plan=Pro&_hp=' });

    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<div id="form-status" class="notice" role="status" aria-live="polite" tabindex="-1">Merci &lt;3</div>');
    expect(response.body).toMatch(/<form id="postlane-form" method="post" hidden>/);
    expect((await submissionsOf(key, form.id)).submissions[0].data).toEqual({ email: 'ann@example.com', age: 30, score: 4, topics: ['News'], plan: 'Pro' });
  });

  it("shows the form again with the values given and each field's error, and 422", async () => {
    const { key, form } = await everyTypeForm();

    const response = await submit(form.slug, undefined, { form: 'email=nope&name=%3Cb%3EAnn%3C%2Fb%3E&score=9&topics=News&topics=Events' });

    expect(response.status).toBe(422);
    expect(response.body).toContain(
      '<input type="email" id="f-email" name="email" autocomplete="email" value="nope" aria-describedby="f-email-error" aria-invalid="true">',
    );
    expect(response.body).toContain('<p class="error" id="f-email-error">Must be a valid email address</p>');
    expect(response.body).toContain('<p class="error" id="f-score-error">Must be a whole number from 1 to 5</p>');
    expect(response.body).toContain('value="&lt;b&gt;Ann&lt;/b&gt;"');
    expect(response.body).toContain('<input type="checkbox" name="topics" value="Events" checked aria-describedby="f-topics-error">');
    expect(response.body).not.toMatch(/<form[^>]*action=/);
    expect((await submissionsOf(key, form.id)).pagination.total).toBe(0);
  });

  it('answers a form post in JSON when Accept asks for it, and a 404 page for an unknown form', async () => {
    const { form } = await everyTypeForm();

    const json = await submit(form.slug, undefined, { form: 'email=a%40example.com', headers: { accept: 'application/json' } });
    const missing = await submit('no-such-form', undefined, { form: 'email=a%40example.com' });

    expect(json.body).toMatchObject({ success: true, message: 'Thank you! Your submission has been received.' });
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('<h1>This form is not available</h1>');
  });
});

describe('form submissions: rate limits', () => {
  afterEach(() => vi.useRealTimers());

  it('refuses a submitter address past its per-minute limit with 429 and retryAfter, valid or not', async () => {
    const { key, form } = await everyTypeForm();
    const limit = SUBMISSION_RATE_LIMITS.perAddress.perWindow;
    makeRoom(60, 20);

    const statuses: number[] = [];
    for (let index = 0; index < limit; index++)
      statuses.push((await submit(form.id, index % 2 ? { email: 'bad' } : { email: 'a@example.com' }, { ip: '192.0.2.7' })).status);
    const refused = await submit(form.id, { email: 'a@example.com' }, { ip: '192.0.2.7' });
    // The burst may have filled the form's own one-second window too.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const otherAddress = await submit(form.id, { email: 'a@example.com' }, { ip: '192.0.2.8' });

    expect(statuses.filter((status) => status === 200)).toHaveLength(limit / 2);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringMatching(/^Too many submissions from this address; try again in \d+ s$/),
      retryAfter: expect.any(Number),
    });
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['Retry-After']).toBe(String(refused.body.retryAfter));
    expect(otherAddress.status).toBe(200);
    expect((await analyticsOf(key, form.id)).submissions).toBe(limit / 2 + 1);
  });

  it('limits an address per day as well, until UTC midnight', async () => {
    const { accountId, form } = await everyTypeForm();
    const { perWindow, perDay } = SUBMISSION_RATE_LIMITS.perAddress;
    const start = Date.UTC(2026, 10, 21, 22, 0, 0);

    for (let index = 0; index < perDay; index++) {
      await admitSubmission(accountId, form.id, '192.0.2.9', new Date(start + Math.floor(index / perWindow) * 60_000));
    }
    const refused = await admitSubmission(accountId, form.id, '192.0.2.9', new Date(start + 3_600_000)).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).details.retryAfter).toBe(3600);
  });

  it('limits a form per second across addresses', async () => {
    const { accountId, form } = await everyTypeForm();
    const { perWindow } = SUBMISSION_RATE_LIMITS.perForm;
    const second = new Date(Date.UTC(2026, 10, 21, 12, 0, 0, 100));

    const outcomes = await Promise.all(
      Array.from({ length: perWindow + 5 }, (_, index) =>
        admitSubmission(accountId, form.id, `192.0.2.${index}`, second).then(
          () => 'admitted',
          (error: unknown) => error,
        ),
      ),
    );
    const nextSecond = await admitSubmission(accountId, form.id, '192.0.2.200', new Date(second.getTime() + 1000));

    expect(outcomes.filter((outcome) => outcome === 'admitted')).toHaveLength(perWindow);
    const refused = outcomes.filter((outcome) => outcome instanceof RateLimitError) as RateLimitError[];
    expect(refused).toHaveLength(5);
    expect(refused[0]!.message).toBe('This form is receiving too many submissions; try again in 1 s');
    expect(nextSecond).toBeUndefined();
  });
});

describe('form analytics', () => {
  it('counts views and submissions exactly under concurrency', async () => {
    const { key, form } = await everyTypeForm();
    const submissions = SUBMISSION_RATE_LIMITS.perForm.perWindow;

    await Promise.all([
      ...Array.from({ length: 25 }, () => request('GET', `/api/forms/public/${form.slug}`)),
      ...Array.from({ length: 15 }, () => request('GET', `/f/${form.slug}`)),
      ...Array.from({ length: submissions }, (_, index) => submit(form.id, { email: `p${index}@example.com` })),
    ]);

    expect(await analyticsOf(key, form.id)).toEqual({ views: 40, submissions, conversionRate: Math.round((submissions / 40) * 1000) / 10 });
    expect((await submissionsOf(key, form.id, '?limit=100')).pagination.total).toBe(submissions);
  });

  it('computes conversionRate to one decimal', async () => {
    const { key, form } = await everyTypeForm();
    for (let index = 0; index < 3; index++) await request('GET', `/api/forms/public/${form.slug}`);

    await submit(form.id, { email: 'a@example.com' });

    expect(await analyticsOf(key, form.id)).toEqual({ views: 3, submissions: 1, conversionRate: 33.3 });
  });
});

describe('form submissions list', () => {
  /** Submissions at chosen times, written as the submit path writes them. */
  async function seeded(times: string[]) {
    const { key, accountId, form } = await everyTypeForm();
    for (const createdAt of times) {
      await insertSubmission(
        accountId,
        { submissionId: newId('sub', Date.parse(createdAt)), formId: form.id, data: { email: 'a@example.com' }, createdAt },
        true,
      );
    }
    return { key, form };
  }

  it('filters on createdAt with inclusive ISO 8601 bounds; a bare date covers its whole day', async () => {
    const { key, form } = await seeded([
      '2026-11-19T23:59:59.999Z',
      '2026-11-20T00:00:00.000Z',
      '2026-11-20T12:00:00.000Z',
      '2026-11-21T00:00:00.000Z',
      '2026-11-22T08:00:00.000Z',
    ]);
    const dates = (body: { submissions: { createdAt: string }[] }) => body.submissions.map((submission) => submission.createdAt);

    const exact = await submissionsOf(key, form.id, '?startDate=2026-11-20T00:00:00Z&endDate=2026-11-21T00:00:00.000Z');
    const day = await submissionsOf(key, form.id, '?startDate=2026-11-20&endDate=2026-11-20');
    const from = await submissionsOf(key, form.id, '?startDate=2026-11-21');
    const until = await submissionsOf(key, form.id, '?endDate=2026-11-20T01:00:00%2B01:00');

    expect(dates(exact)).toEqual(['2026-11-21T00:00:00.000Z', '2026-11-20T12:00:00.000Z', '2026-11-20T00:00:00.000Z']);
    expect(exact.pagination).toEqual({ total: 3, page: 1, limit: 20, pages: 1 });
    expect(dates(day)).toEqual(['2026-11-20T12:00:00.000Z', '2026-11-20T00:00:00.000Z']);
    expect(dates(from)).toEqual(['2026-11-22T08:00:00.000Z', '2026-11-21T00:00:00.000Z']);
    expect(dates(until)).toEqual(['2026-11-20T00:00:00.000Z', '2026-11-19T23:59:59.999Z']);
  });

  it('pages newest first with exact totals, in range and out', async () => {
    const times = Array.from({ length: 5 }, (_, index) => `2026-11-2${index}T10:00:00.000Z`);
    const { key, form } = await seeded(times);

    const first = await submissionsOf(key, form.id, '?limit=2');
    const last = await submissionsOf(key, form.id, '?limit=2&page=3');
    const ranged = await submissionsOf(key, form.id, '?limit=2&page=2&startDate=2026-11-21');
    const past = await submissionsOf(key, form.id, '?limit=2&page=9');

    expect(first.submissions.map((submission: { createdAt: string }) => submission.createdAt)).toEqual([times[4], times[3]]);
    expect(first.pagination).toEqual({ total: 5, page: 1, limit: 2, pages: 3 });
    expect(last.submissions.map((submission: { createdAt: string }) => submission.createdAt)).toEqual([times[0]]);
    expect(ranged.submissions.map((submission: { createdAt: string }) => submission.createdAt)).toEqual([times[2], times[1]]);
    expect(ranged.pagination).toEqual({ total: 4, page: 2, limit: 2, pages: 2 });
    expect(past).toEqual({ success: true, submissions: [], pagination: { total: 5, page: 9, limit: 2, pages: 3 } });
  });

  it.each([
    ['startDate=yesterday', 'startDate'],
    ['endDate=2026-13-01', 'endDate'],
    ['startDate=2026-02-30', 'startDate'],
    ['startDate=2026-11-22&endDate=2026-11-21', 'startDate'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
  ])('refuses %s with 422 naming the parameter', async (query, field) => {
    const { key, form } = await everyTypeForm();

    const response = await request('GET', `/api/forms/${form.id}/submissions?${query}`, { key });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, error: 'VALIDATION_ERROR', field });
  });
});
