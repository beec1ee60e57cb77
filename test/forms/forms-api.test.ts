import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request, startApi } from '../support/api.ts';
import { createSender } from '../sending/support.ts';
import { listSubmissions } from '#shared/forms/store.ts';
import { createForm, formBody, ISO, submit, accountWithForm } from './support.ts';
import { expectCreated, expectUpdatesRefused } from '../support/arrange.ts';

/** Unique per run, so slugs made by one test never meet another's (slugs are unique across the deployment). */
const unique = () => Math.random().toString(36).slice(2, 10);

/** The public base the test server was given (PUBLIC_BASE_URL), where hosted pages live. */
const publicOrigin = async () => new URL((await startApi()).url).origin;

describe('forms API: create, get, update, delete', () => {
  it('creates a form with 201 and the defaults of everything not given', async () => {
    const { key } = await createTestAccount();
    const slug = `signup-${unique()}`;

    const response = await request('POST', '/api/forms', { key, body: formBody({ slug, description: 'Monthly news' }) });

    expectCreated(response, {
      id: expect.stringMatching(/^frm_[0-9A-Za-z]{20}$/),
      title: 'Newsletter sign-up',
      description: 'Monthly news',
      slug,
      published: true,
      publishedUrl: `${await publicOrigin()}/f/${slug}`,
      fields: [
        { id: 'email', type: 'email', label: 'Email', placeholder: null, required: true },
        { id: 'firstName', type: 'text', label: 'First name', placeholder: null, required: false },
      ],
      settings: {
        successMessage: 'Thank you! Your submission has been received.',
        notifyEmail: null,
        enableCaptcha: false,
        storeResponses: true,
        doubleOptIn: false,
        from: null,
      },
      audienceId: null,
      appearance: { backgroundColor: '#ffffff', primaryColor: '#2563eb', fontFamily: 'system-ui, sans-serif' },
      buttonCustomization: { text: 'Submit', variant: 'filled' },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const fetched = await request('GET', `/api/forms/${response.body.data.id}`, { key });
    expect(fetched.body).toEqual(response.body);
  });

  it('stores options of choice fields, settings, appearance and the button as given', async () => {
    const sender = await createSender();
    const { id: audienceId } = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Leads' } })).body.data;

    const data = await createForm(sender.key, {
      published: false,
      fields: [
        { id: 'email', type: 'email', label: 'Email', placeholder: 'you@example.com', required: true },
        { id: 'plan', type: 'select', label: 'Plan', options: ['Free', 'Pro'] },
      ],
      settings: {
        successMessage: 'Welcome!',
        notifyEmail: 'Owner@Example.com',
        storeResponses: false,
        doubleOptIn: true,
        enableCaptcha: true,
        from: `Acme <${sender.from}>`,
      },
      audienceId,
      appearance: { primaryColor: '#ff0066', fontFamily: 'Inter, "Helvetica Neue", sans-serif' },
      buttonCustomization: { text: 'Join', variant: 'outline' },
    });

    expect(data.fields[1]).toEqual({ id: 'plan', type: 'select', label: 'Plan', placeholder: null, required: false, options: ['Free', 'Pro'] });
    expect(data.fields[0].placeholder).toBe('you@example.com');
    expect(data.settings).toEqual({
      successMessage: 'Welcome!',
      notifyEmail: 'owner@example.com',
      enableCaptcha: true,
      storeResponses: false,
      doubleOptIn: true,
      from: `Acme <${sender.from}>`,
    });
    expect(data.audienceId).toBe(audienceId);
    expect(data.published).toBe(false);
    expect(data.appearance).toEqual({ backgroundColor: '#ffffff', primaryColor: '#ff0066', fontFamily: 'Inter, "Helvetica Neue", sans-serif' });
    expect(data.buttonCustomization).toEqual({ text: 'Join', variant: 'outline' });
  });

  it.each([
    ['missing title', { title: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'title'],
    ['blank title', { title: '  ' }, 400, 'MISSING_REQUIRED_FIELD', 'title'],
    ['missing fields', { fields: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'fields'],
    ['no fields', { fields: [] }, 400, 'MISSING_REQUIRED_FIELD', 'fields'],
    ['unknown key', { colour: 'red' }, 422, 'VALIDATION_ERROR', 'colour'],
    ['field id not starting with a letter', { fields: [{ id: '1st', type: 'text', label: 'A' }] }, 422, 'VALIDATION_ERROR', 'fields[0].id'],
    ['field id with a space', { fields: [{ id: 'first name', type: 'text', label: 'A' }] }, 422, 'VALIDATION_ERROR', 'fields[0].id'],
    ['unknown field type', { fields: [{ id: 'a', type: 'color', label: 'A' }] }, 422, 'VALIDATION_ERROR', 'fields[0].type'],
    ['field without label', { fields: [{ id: 'a', type: 'text' }] }, 400, 'MISSING_REQUIRED_FIELD', 'fields[0].label'],
    ['select without options', { fields: [{ id: 'a', type: 'select', label: 'A' }] }, 400, 'MISSING_REQUIRED_FIELD', 'fields[0].options'],
    ['options on a text field', { fields: [{ id: 'a', type: 'text', label: 'A', options: ['x'] }] }, 422, 'VALIDATION_ERROR', 'fields[0].options'],
    ['repeated option', { fields: [{ id: 'a', type: 'radio', label: 'A', options: ['x', 'x'] }] }, 422, 'VALIDATION_ERROR', 'fields[0].options'],
    [
      'repeated field id',
      {
        fields: [
          { id: 'a', type: 'text', label: 'A' },
          { id: 'a', type: 'email', label: 'B' },
        ],
      },
      422,
      'VALIDATION_ERROR',
      'fields[1].id',
    ],
    ['colour that is not one', { appearance: { primaryColor: 'red;background:url(x)' } }, 422, 'VALIDATION_ERROR', 'appearance.primaryColor'],
    ['font that closes the style', { appearance: { fontFamily: 'Arial}</style><script>' } }, 422, 'VALIDATION_ERROR', 'appearance.fontFamily'],
    ['font with an open quote', { appearance: { fontFamily: '"Arial' } }, 422, 'VALIDATION_ERROR', 'appearance.fontFamily'],
    ['unknown button variant', { buttonCustomization: { variant: 'neon' } }, 422, 'VALIDATION_ERROR', 'buttonCustomization.variant'],
    ['malformed notifyEmail', { settings: { notifyEmail: 'owner', from: 'a@example.com' } }, 422, 'INVALID_EMAIL', 'settings.notifyEmail'],
    [
      'notifyEmail without a sender or a verified domain',
      { settings: { notifyEmail: 'owner@example.com' } },
      403,
      'SENDER_NOT_VERIFIED',
      'settings.notifyEmail',
    ],
    ['doubleOptIn without an audience', { settings: { doubleOptIn: true, from: 'a@example.com' } }, 422, 'VALIDATION_ERROR', 'settings.doubleOptIn'],
    [
      'audience without an email field',
      { audienceId: 'aud_0000000000000000000', fields: [{ id: 'a', type: 'text', label: 'A' }] },
      422,
      'VALIDATION_ERROR',
      'audienceId',
    ],
    ['published that is not a boolean', { published: 'yes' }, 422, 'VALIDATION_ERROR', 'published'],
  ])('refuses a form with %s', async (_case, overrides, status, error, field) => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/forms', { key, body: formBody(overrides) });

    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ success: false, error, field });
  });

  it("requires the audience to be the account's and the sender domain to be verified", async () => {
    const { key } = await createTestAccount();
    const other = await createTestAccount();
    const foreign = (await request('POST', '/api/audiences', { key: other.key, body: { name: 'Theirs' } })).body.data.id;

    const unknownAudience = await request('POST', '/api/forms', { key, body: formBody({ audienceId: 'aud_0Vbcs0FZOM1rqYBywxzZ' }) });
    const foreignAudience = await request('POST', '/api/forms', { key, body: formBody({ audienceId: foreign }) });
    const unverified = await request('POST', '/api/forms', {
      key,
      body: formBody({ settings: { notifyEmail: 'me@example.com', from: 'forms@not-verified.example' } }),
    });

    expect(unknownAudience.status).toBe(404);
    expect(unknownAudience.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(foreignAudience.body).toEqual(unknownAudience.body);
    expect(unverified.status).toBe(403);
    expect(unverified.body).toMatchObject({ error: 'SENDER_NOT_VERIFIED', field: 'settings.from' });
  });

  it('updates only what is given: settings merge, null clears, fields are replaced', async () => {
    const sender = await createSender();
    const form = await createForm(sender.key, {
      description: 'Old',
      settings: { notifyEmail: 'owner@example.com', from: sender.from, successMessage: 'Thanks' },
    });

    const response = await request('PATCH', `/api/forms/${form.id}`, {
      key: sender.key,
      body: {
        title: 'New title',
        description: null,
        settings: { notifyEmail: null, storeResponses: false },
        fields: [{ id: 'email', type: 'email', label: 'Your email', required: true }],
        appearance: { backgroundColor: 'papayawhip' },
        buttonCustomization: { text: 'Send' },
        published: false,
      },
    });

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      ...form,
      title: 'New title',
      description: null,
      published: false,
      fields: [{ id: 'email', type: 'email', label: 'Your email', placeholder: null, required: true }],
      settings: { ...form.settings, notifyEmail: null, storeResponses: false },
      appearance: { ...form.appearance, backgroundColor: 'papayawhip' },
      buttonCustomization: { text: 'Send', variant: 'filled' },
      updatedAt: expect.stringMatching(ISO),
    });
    expect((await request('GET', `/api/forms/${form.id}`, { key: sender.key })).body.data).toEqual(response.body.data);
  });

  it('checks an update against the whole resulting form', async () => {
    const { key, form } = await accountWithForm();

    const duplicateIds = {
      fields: [
        { id: 'x', type: 'text', label: 'X' },
        { id: 'x', type: 'text', label: 'Y' },
      ],
    };

    await expectUpdatesRefused(key, `/api/forms/${form.id}`, form, [
      [{ settings: { doubleOptIn: true } }, 422, 'VALIDATION_ERROR', 'settings.doubleOptIn'],
      [duplicateIds, 422, 'VALIDATION_ERROR', 'fields[1].id'],
      [{ id: 'frm_other' }, 422, 'VALIDATION_ERROR', 'id'],
    ]);
  });

  it('deletes a form with its submissions and frees its slug', async () => {
    const { key, accountId } = await createTestAccount();
    const other = await createTestAccount();
    const form = await createForm(key, { slug: `gone-${unique()}` });
    await submit(form.slug, { email: 'a@example.com' });

    const response = await request('DELETE', `/api/forms/${form.id}`, { key });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: 'Form deleted with its submissions' });
    expect((await request('GET', `/api/forms/${form.id}`, { key })).body).toMatchObject({ error: 'FORM_NOT_FOUND' });
    expect((await request('GET', `/api/forms/public/${form.slug}`)).status).toBe(404);
    expect((await request('DELETE', `/api/forms/${form.id}`, { key })).status).toBe(404);
    expect((await listSubmissions(accountId, form.id, {}, 0, 100)).submissions).toEqual([]);
    expect((await createForm(other.key, { slug: form.slug })).slug).toBe(form.slug);
  });

  it("answers another account's form exactly like an unknown one", async () => {
    const owner = await createTestAccount();
    const intruder = await createTestAccount();
    const form = await createForm(owner.key);
    const unknown = 'frm_0Vbcs0FZOM1rqYBywxzZ';

    for (const [method, path, body] of [
      ['GET', '/api/forms/%s', undefined],
      ['PATCH', '/api/forms/%s', { title: 'Mine now' }],
      ['DELETE', '/api/forms/%s', undefined],
      ['GET', '/api/forms/%s/submissions', undefined],
    ] as const) {
      const theirs = await request(method, path.replace('%s', form.id), { key: intruder.key, ...(body ? { body } : {}) });
      const missing = await request(method, path.replace('%s', unknown), { key: intruder.key, ...(body ? { body } : {}) });
      const malformed = await request(method, path.replace('%s', 'not-an-id'), { key: intruder.key, ...(body ? { body } : {}) });
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(theirs.body).toEqual({ success: false, error: 'FORM_NOT_FOUND', message: 'Form not found' });
      expect(missing.body).toEqual(theirs.body);
      expect(malformed.body).toEqual(theirs.body);
    }
    expect((await request('GET', '/api/forms', { key: intruder.key })).body.forms).toEqual([]);
    expect((await request('GET', `/api/forms/${form.id}`, { key: owner.key })).body.data).toEqual(form);
  });

  it('needs a key with full permission', async () => {
    const sending = await createTestAccount({ permission: 'sending' });

    expect((await request('GET', '/api/forms')).status).toBe(401);
    expect((await request('POST', '/api/forms', { key: sending.key, body: formBody() })).body).toMatchObject({ error: 'FORBIDDEN' });
  });
});

describe('forms API: slugs', () => {
  it('makes the slug from the title, and adds a random suffix when it is taken', async () => {
    const { key } = await createTestAccount();
    const title = `Spring Sale — Ünïcode ${unique()}!`;

    const first = await createForm(key, { title });
    const second = await createForm(key, { title });
    const symbols = await createForm(key, { title: '!!' });

    expect(first.slug).toBe(`spring-sale-unicode-${title.split(' ').at(-1)!.slice(0, -1)}`);
    expect(second.slug).toMatch(new RegExp(`^${first.slug}-[0-9a-f]{6}$`));
    expect(symbols.slug).toMatch(/^form(?:-[0-9a-f]{6})?$/);
  });

  it('keeps a slug unique across the deployment: 409 SLUG_TAKEN for another account too', async () => {
    const { key } = await createTestAccount();
    const other = await createTestAccount();
    const slug = `taken-${unique()}`;
    await createForm(key, { slug });

    const sameAccount = await request('POST', '/api/forms', { key, body: formBody({ slug }) });
    const otherAccount = await request('POST', '/api/forms', { key: other.key, body: formBody({ slug }) });

    expect(sameAccount.status).toBe(409);
    expect(sameAccount.body).toEqual({ success: false, error: 'SLUG_TAKEN', message: 'This slug is already used by another form', field: 'slug' });
    expect(otherAccount.body).toEqual(sameAccount.body);
  });

  it('gives a slug to only one of five racing creates', async () => {
    const { key } = await createTestAccount();
    const slug = `race-${unique()}`;

    const results = await Promise.all(Array.from({ length: 5 }, () => request('POST', '/api/forms', { key, body: formBody({ slug }) })));

    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await request('GET', '/api/forms', { key })).body.pagination.total).toBe(1);
  });

  it.each([['Upper'], ['ab'], ['a'.repeat(65)], ['-lead'], ['trail-'], ['dou--ble'], ['under_score'], ['spa ce'], ['frm_0Vbcs0FZOM1rqYBywxzZ']])(
    'refuses the slug %j',
    async (slug) => {
      const { key } = await createTestAccount();

      const response = await request('POST', '/api/forms', { key, body: formBody({ slug }) });

      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'slug' });
    },
  );

  it('releases the old slug when it changes', async () => {
    const { key } = await createTestAccount();
    const other = await createTestAccount();
    const form = await createForm(key, { slug: `before-${unique()}` });
    const renamed = `after-${unique()}`;

    const response = await request('PATCH', `/api/forms/${form.id}`, { key, body: { slug: renamed } });

    expect(response.body.data.slug).toBe(renamed);
    expect(response.body.data.publishedUrl).toBe(`${await publicOrigin()}/f/${renamed}`);
    expect((await request('GET', `/api/forms/${form.id}`, { key })).body.data.publishedUrl).toBe(response.body.data.publishedUrl);
    expect((await request('GET', `/api/forms/public/${form.slug}`)).status).toBe(404);
    expect((await request('GET', `/api/forms/public/${renamed}`)).status).toBe(200);
    expect((await submit(renamed, { email: 'a@example.com' })).status).toBe(200);
    expect((await createForm(other.key, { slug: form.slug })).slug).toBe(form.slug);
  });

  it('refuses to rename onto a taken slug and changes nothing', async () => {
    const { key } = await createTestAccount();
    const first = await createForm(key, { slug: `first-${unique()}` });
    const second = await createForm(key, { slug: `second-${unique()}` });

    const response = await request('PATCH', `/api/forms/${second.id}`, { key, body: { slug: first.slug, title: 'Changed' } });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: 'SLUG_TAKEN', field: 'slug' });
    expect((await request('GET', `/api/forms/${second.id}`, { key })).body.data).toEqual(second);
    expect((await request('GET', `/api/forms/public/${second.slug}`)).status).toBe(200);
  });
});

describe('forms API: list and public view', () => {
  it('lists newest first with publishedUrl, analytics and exact totals per published filter', async () => {
    const { key } = await createTestAccount();
    const a = await createForm(key, { title: `A ${unique()}` });
    const b = await createForm(key, { title: `B ${unique()}`, published: false });
    const c = await createForm(key, { title: `C ${unique()}` });
    await request('PATCH', `/api/forms/${a.id}`, { key, body: { published: false } });

    const all = await request('GET', '/api/forms?limit=2', { key });
    const published = await request('GET', '/api/forms?published=true', { key });
    const unpublished = await request('GET', '/api/forms?published=false', { key });

    expect(all.status).toBe(200);
    expect(all.body.forms.map((form: { id: string }) => form.id)).toEqual([c.id, b.id]);
    expect(all.body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    const origin = await publicOrigin();
    expect(all.body.forms[0]).toEqual({
      id: c.id,
      title: c.title,
      description: null,
      slug: c.slug,
      published: true,
      fields: c.fields,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      publishedUrl: `${origin}/f/${c.slug}`,
      analytics: { views: 0, submissions: 0, conversionRate: 0 },
    });
    expect(published.body.forms.map((form: { id: string }) => form.id)).toEqual([c.id]);
    expect(published.body.pagination.total).toBe(1);
    expect(unpublished.body.forms.map((form: { id: string }) => form.id)).toEqual([b.id, a.id]);
    expect(unpublished.body.pagination.total).toBe(2);
  });

  it.each([
    ['published=yes', 'published'],
    ['published=1', 'published'],
    ['limit=101', 'limit'],
    ['page=0', 'page'],
  ])('refuses %s with 422', async (query, field) => {
    const { key } = await createTestAccount();

    const response = await request('GET', `/api/forms?${query}`, { key });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field });
  });

  it('defaults to page 1 of 20', async () => {
    const { key } = await createTestAccount();

    expect((await request('GET', '/api/forms', { key })).body).toEqual({ success: true, forms: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } });
  });

  it('shows a published form publicly without id, slug, settings or audience, and counts the view', async () => {
    const { key, form } = await accountWithForm({
      description: 'Hello',
      appearance: { primaryColor: '#123456' },
      buttonCustomization: { text: 'Go', variant: 'ghost' },
    });

    const response = await request('GET', `/api/forms/public/${form.slug}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        title: form.title,
        description: 'Hello',
        fields: form.fields,
        appearance: { ...form.appearance, primaryColor: '#123456' },
        buttonCustomization: { text: 'Go', variant: 'ghost' },
      },
    });
    const listed = (await request('GET', '/api/forms', { key })).body.forms[0];
    expect(listed.analytics).toEqual({ views: 1, submissions: 0, conversionRate: 0 });
  });

  it('answers 404 FORM_NOT_FOUND for unpublished, unknown and id-shaped slugs, without counting', async () => {
    const { key } = await createTestAccount();
    const hidden = await createForm(key, { published: false });

    const unpublished = await request('GET', `/api/forms/public/${hidden.slug}`);
    const unknown = await request('GET', `/api/forms/public/no-such-form-${unique()}`);
    const byId = await request('GET', `/api/forms/public/${hidden.id}`);

    for (const response of [unpublished, unknown, byId]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: 'FORM_NOT_FOUND', message: 'Form not found' });
    }
    expect((await request('GET', '/api/forms', { key })).body.forms[0].analytics.views).toBe(0);
  });
});
