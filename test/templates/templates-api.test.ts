import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createTemplate, expectCreated, expectErrorReply, expectUpdatesRefused } from '../support/arrange.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TEMPLATE_ID = /^tpl_[0-9A-Za-z]{20}$/;

const welcome = {
  name: 'Welcome',
  subject: 'Welcome, {{name|"friend"}}!',
  components: [
    { id: 'title', type: 'heading', content: 'Hello {{name}}', styles: { fontSize: 30, color: '#111' } },
    { type: 'text', content: 'Your plan is <strong>{{plan}}</strong>.{{#if vip}} Thanks for being a VIP.{{/if}}' },
    {
      type: 'button',
      label: 'Open your account',
      url: 'https://app.example.com/account?ref={{ref}}',
      styles: { backgroundColor: 'navy', textAlign: 'center', borderRadius: 4 },
    },
  ],
  styles: { backgroundColor: '#f4f4f5', width: 560 },
};

describe('create template', () => {
  it('stores name, subject, components and styles, and returns them with 201', async () => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/templates', { key, body: welcome });

    expectCreated(response, {
      id: expect.stringMatching(TEMPLATE_ID),
      name: 'Welcome',
      subject: 'Welcome, {{name|"friend"}}!',
      components: [
        { id: 'title', type: 'heading', content: 'Hello {{name}}', level: 1, styles: { fontSize: 30, color: '#111' } },
        { id: expect.stringMatching(/^cmp_/), type: 'text', content: welcome.components[1]!.content, styles: {} },
        {
          id: expect.stringMatching(/^cmp_/),
          type: 'button',
          label: 'Open your account',
          url: 'https://app.example.com/account?ref={{ref}}',
          styles: { backgroundColor: 'navy', textAlign: 'center', borderRadius: 4 },
        },
      ],
      styles: { backgroundColor: '#f4f4f5', width: 560, padding: 24 },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
  });

  it('defaults components to none and styles to white, 600 wide, 24 padding', async () => {
    const { key } = await createTestAccount();

    const data = await createTemplate(key, { name: 'Bare', subject: 'Hi' });

    expect(data).toMatchObject({ components: [], styles: { backgroundColor: '#ffffff', width: 600, padding: 24 } });
  });

  it('answers missing, unknown and malformed fields with the code and the field', async () => {
    const { key } = await createTestAccount();
    // A valid name and subject around the part each case gets wrong.
    const withComponents = (...components: unknown[]) => ({ name: 'x', subject: 'x', components });
    const withStyles = (styles: Record<string, unknown>) => ({ name: 'x', subject: 'x', styles });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ subject: 'x' }, 400, 'MISSING_REQUIRED_FIELD', 'name'],
      [{ name: 'x' }, 400, 'MISSING_REQUIRED_FIELD', 'subject'],
      [{ name: 'x', subject: 'x', colour: 'red' }, 422, 'VALIDATION_ERROR', 'colour'],
      [withComponents({ content: 'no type' }), 400, 'MISSING_REQUIRED_FIELD', 'components[0].type'],
      [withComponents({ type: 'text', content: 'ok' }, { type: 'video', content: 'x' }), 422, 'VALIDATION_ERROR', 'components[1].type'],
      [withComponents({ type: 'text' }), 400, 'MISSING_REQUIRED_FIELD', 'components[0].content'],
      [withComponents({ type: 'text', content: 'x', label: 'y' }), 422, 'VALIDATION_ERROR', 'components[0].label'],
      [withComponents({ type: 'button', label: 'Go', url: 'javascript:alert(1)' }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ type: 'button', label: 'Go', url: 'data:text/html,x' }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ type: 'text', content: 'x', styles: { color: 'red;background:url(x)' } }), 422, 'VALIDATION_ERROR', 'components[0].styles.color'],
      [
        withComponents({ type: 'text', content: 'x', styles: { backgroundColor: 'rgb(300, 0, 0)' } }),
        422,
        'VALIDATION_ERROR',
        'components[0].styles.backgroundColor',
      ],
      [withComponents({ type: 'text', content: 'x', styles: { fontSize: '16px' } }), 422, 'VALIDATION_ERROR', 'components[0].styles.fontSize'],
      [withComponents({ type: 'text', content: 'x', styles: { textAlign: 'middle' } }), 422, 'VALIDATION_ERROR', 'components[0].styles.textAlign'],
      [withComponents({ type: 'text', content: 'x', styles: { margin: 4 } }), 422, 'VALIDATION_ERROR', 'components[0].styles.margin'],
      [withComponents({ type: 'text', content: '<script>steal()</script>' }), 422, 'VALIDATION_ERROR', 'components[0].content'],
      [withComponents({ type: 'text', content: '<img src="x.png" onerror="steal()">' }), 422, 'VALIDATION_ERROR', 'components[0].content'],
      [withComponents({ type: 'text', content: '<style>p{color:red}</style>' }), 422, 'VALIDATION_ERROR', 'components[0].content'],
      [withComponents({ id: 'a', type: 'text', content: 'x' }, { id: 'a', type: 'text', content: 'y' }), 422, 'VALIDATION_ERROR', 'components[1].id'],
      [withStyles({ width: 2000 }), 422, 'VALIDATION_ERROR', 'styles.width'],
      [withStyles({ padding: 1.5 }), 422, 'VALIDATION_ERROR', 'styles.padding'],
      [withStyles({ backgroundColor: 'url(https://evil.example/x.png)' }), 422, 'VALIDATION_ERROR', 'styles.backgroundColor'],
      [withComponents(...Array.from({ length: 101 }, () => ({ type: 'text', content: 'x' }))), 422, 'VALIDATION_ERROR', 'components'],
      [withComponents({ type: 'text', content: 'x'.repeat(50_001) }), 422, 'VALIDATION_ERROR', 'components[0].content'],
      [{ name: 'x'.repeat(257), subject: 'x' }, 422, 'VALIDATION_ERROR', 'name'],
    ];

    for (const [body, status, error, field] of cases) {
      const response = await request('POST', '/api/templates', { key, body });
      expect({ status: response.status, body: response.body }, JSON.stringify(body).slice(0, 120)).toEqual({
        status,
        body: { success: false, error, field, message: expect.stringContaining(field) },
      });
    }
    expect((await request('GET', '/api/templates', { key })).body.pagination.total).toBe(0);
  });

  it('parses the template language when saving: a syntax error is a 422 on the part that has it', async () => {
    const { key } = await createTestAccount();

    const unclosed = await request('POST', '/api/templates', {
      key,
      body: {
        name: 'x',
        subject: 'x',
        components: [
          { type: 'text', content: 'ok' },
          { type: 'text', content: 'ok' },
          { type: 'text', content: '{{#if vip}}gold' },
        ],
      },
    });
    const unknownFilter = await request('POST', '/api/templates', { key, body: { name: 'x', subject: 'Hi {{ name | shout }}' } });
    const unknownBlock = await request('POST', '/api/templates', {
      key,
      body: { name: 'x', subject: 'x', components: [{ type: 'button', label: '{{#each items}}x{{/each}}', url: 'https://example.com' }] },
    });

    expectErrorReply(unclosed, 422, {
      error: 'VALIDATION_ERROR',
      field: 'components[2].content',
      message: 'components[2].content: invalid template syntax: {{#if}} without {{/if}}',
    });
    expect(unknownFilter.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'subject', message: expect.stringContaining('undefined filter: shout') });
    expect(unknownBlock.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'components[0].label' });
  });

  it('rejects hostile syntax and markup of the largest size quickly', async () => {
    const { key } = await createTestAccount();
    const hostile = [
      `{{#${' '.repeat(49_000)}x`,
      `{{#if ${'a '.repeat(24_000)}`,
      `<a =${' '.repeat(49_000)}x`,
      `<a on${'a'.repeat(24_000)}${' '.repeat(24_000)}`,
    ];
    const started = Date.now();

    const answers = await Promise.all(
      hostile.map((content) => request('POST', '/api/templates', { key, body: { name: 'Hostile', subject: 'x', components: [{ type: 'text', content }] } })),
    );

    // Before the template-language fix the first one took minutes; the bound leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answers.map((answer) => [answer.status, answer.body.field])).toEqual([
      [422, 'components[0].content'],
      [422, 'components[0].content'],
      [201, undefined],
      [201, undefined],
    ]);
  });

  it('accepts a button address that is a variable, http(s) or mailto', async () => {
    const { key } = await createTestAccount();
    const urls = ['{{unsubscribeUrl}}', '{{ preferencesUrl }}', '{{link|"https://example.com"}}', 'http://example.com/{{id}}', 'mailto:help@example.com'];

    const answers = await Promise.all(
      urls.map((url) => request('POST', '/api/templates', { key, body: { name: url, subject: 'x', components: [{ type: 'button', label: 'Go', url }] } })),
    );

    expect(answers.map((answer) => answer.status)).toEqual(urls.map(() => 201));
  });
});

describe('list templates', () => {
  it('lists newest first without components, with exact pagination and an empty page past the end', async () => {
    const { key } = await createTestAccount();
    const created = [];
    for (const name of ['Alpha', 'Beta', 'Gamma']) created.push(await createTemplate(key, { ...welcome, name }));

    const first = await request('GET', '/api/templates?limit=2', { key });
    const second = await request('GET', '/api/templates?limit=2&page=2', { key });
    const past = await request('GET', '/api/templates?limit=2&page=9', { key });

    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      templates: [created[2]!, created[1]!].map(({ id, name, subject, createdAt, updatedAt }) => ({ id, name, subject, createdAt, updatedAt })),
      pagination: { total: 3, page: 1, limit: 2, pages: 2 },
    });
    expect(second.body.templates.map((template: { name: string }) => template.name)).toEqual(['Alpha']);
    expect(past.body).toEqual({ success: true, templates: [], pagination: { total: 3, page: 9, limit: 2, pages: 2 } });
  });

  it('defaults to 20 per page, allows 100 and enforces the ranges', async () => {
    const { key } = await createTestAccount();

    const defaults = await request('GET', '/api/templates', { key });
    const hundred = await request('GET', '/api/templates?limit=100', { key });
    const tooMany = await request('GET', '/api/templates?limit=101', { key });
    const zeroPage = await request('GET', '/api/templates?page=0', { key });

    expect(defaults.body.pagination).toEqual({ total: 0, page: 1, limit: 20, pages: 0 });
    expect(hundred.body.pagination.limit).toBe(100);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
    expect(zeroPage.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'page' });
  });

  it('searches a case-insensitive substring of the name, counting only the matches', async () => {
    const { key } = await createTestAccount();
    for (const name of ['Welcome email', 'Password reset', 'WELCOME back', 'Receipt', 'Re-welcome']) await createTemplate(key, { name, subject: 'x' });

    const page1 = await request('GET', '/api/templates?search=welcome&limit=2', { key });
    const page2 = await request('GET', '/api/templates?search=WelCome&limit=2&page=2', { key });
    const none = await request('GET', '/api/templates?search=invoice', { key });

    expect(page1.body.templates.map((template: { name: string }) => template.name)).toEqual(['Re-welcome', 'WELCOME back']);
    expect(page1.body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    expect(page2.body.templates.map((template: { name: string }) => template.name)).toEqual(['Welcome email']);
    expect(none.body).toEqual({ success: true, templates: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } });
  });

  it('keeps the total exact through creates and deletes', async () => {
    const { key } = await createTestAccount();
    const templates = await Promise.all([1, 2, 3, 4].map((n) => createTemplate(key, { name: `T${n}`, subject: 'x' })));

    await Promise.all([request('DELETE', `/api/templates/${templates[0]!.id}`, { key }), request('DELETE', `/api/templates/${templates[0]!.id}`, { key })]);

    const list = await request('GET', '/api/templates', { key });
    expect(list.body.pagination.total).toBe(3);
    expect(list.body.templates).toHaveLength(3);
  });
});

describe('get, update and delete', () => {
  it('gets a template with components and styles', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, welcome);

    const fetched = await request('GET', `/api/templates/${created.id}`, { key });

    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ success: true, data: created });
  });

  it('changes only the given fields; components and styles are replaced whole', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, welcome);

    const updated = await request('PATCH', `/api/templates/${created.id}`, {
      key,
      body: { subject: 'New subject for {{name}}', components: [{ type: 'text', content: 'Only this' }], styles: { width: 640 } },
    });

    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({
      ...created,
      subject: 'New subject for {{name}}',
      components: [{ id: expect.stringMatching(/^cmp_/), type: 'text', content: 'Only this', styles: {} }],
      styles: { backgroundColor: '#ffffff', width: 640, padding: 24 },
      updatedAt: expect.stringMatching(ISO),
    });
    expect(updated.body.data.updatedAt >= created.updatedAt).toBe(true);
    expect((await request('GET', `/api/templates/${created.id}`, { key })).body.data).toEqual(updated.body.data);
    const listed = (await request('GET', '/api/templates', { key })).body.templates[0];
    expect(listed).toEqual({
      id: created.id,
      name: 'Welcome',
      subject: 'New subject for {{name}}',
      createdAt: created.createdAt,
      updatedAt: updated.body.data.updatedAt,
    });
  });

  it('renames, and search finds the new name only', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, { name: 'Old name', subject: 'x' });

    await request('PATCH', `/api/templates/${created.id}`, { key, body: { name: 'Fresh name' } });

    expect((await request('GET', '/api/templates?search=old', { key })).body.templates).toEqual([]);
    expect((await request('GET', '/api/templates?search=fresh', { key })).body.templates.map((t: { id: string }) => t.id)).toEqual([created.id]);
  });

  it('validates updates like creates and leaves the template unchanged', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, welcome);

    const syntaxError = {
      components: [
        { type: 'text', content: 'a' },
        { type: 'heading', content: '{{/if}}' },
      ],
    };

    await expectUpdatesRefused(key, `/api/templates/${created.id}`, created, [
      [syntaxError, 422, 'VALIDATION_ERROR', 'components[1].content'],
      [{ name: ' ' }, 400, 'MISSING_REQUIRED_FIELD', 'name'],
      [{ id: 'tpl_other' }, 422, 'VALIDATION_ERROR', 'id'],
    ]);
  });

  it('deletes a template; afterwards it is gone everywhere', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, welcome);

    const removed = await request('DELETE', `/api/templates/${created.id}`, { key });
    const again = await request('DELETE', `/api/templates/${created.id}`, { key });

    expect(removed.body).toEqual({ success: true, message: 'Template deleted' });
    expect(again.status).toBe(404);
    expect((await request('GET', `/api/templates/${created.id}`, { key })).status).toBe(404);
    expect((await request('PATCH', `/api/templates/${created.id}`, { key, body: { name: 'Back' } })).status).toBe(404);
    expect((await request('GET', '/api/templates', { key })).body).toEqual({
      success: true,
      templates: [],
      pagination: { total: 0, page: 1, limit: 20, pages: 0 },
    });
  });

  it('answers 404 TEMPLATE_NOT_FOUND for unknown, malformed and foreign ids alike', async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const created = await createTemplate(owner.key, welcome);

    const answers = await Promise.all([
      request('GET', `/api/templates/${created.id}`, { key: stranger.key }),
      request('PATCH', `/api/templates/${created.id}`, { key: stranger.key, body: { name: 'Mine now' } }),
      request('DELETE', `/api/templates/${created.id}`, { key: stranger.key }),
      request('POST', `/api/templates/${created.id}/render`, { key: stranger.key, body: {} }),
      request('GET', '/api/templates/tpl_00000000000000000000', { key: owner.key }),
      request('GET', '/api/templates/not-a-template', { key: owner.key }),
      request('POST', '/api/templates/aud_00000000000000000000/render', { key: owner.key, body: {} }),
    ]);

    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ success: false, error: 'TEMPLATE_NOT_FOUND', message: 'Template not found' });
    }
    expect((await request('GET', `/api/templates/${created.id}`, { key: owner.key })).body.data).toEqual(created);
    expect((await request('GET', '/api/templates', { key: stranger.key })).body.templates).toEqual([]);
  });

  it('is refused to sending-only keys', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });

    const response = await request('POST', '/api/templates', { key, body: welcome });

    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: 'FORBIDDEN' });
  });
});

/** Act: a new account stores the template `body`, then previews it with `variables`. */
async function preview(body: Record<string, unknown>, variables: Record<string, unknown>) {
  const { key } = await createTestAccount();
  const created = await createTemplate(key, body);
  return request('POST', `/api/templates/${created.id}/render`, { key, body: { variables } });
}

describe('render preview', () => {
  it('substitutes variables and defaults, follows if-blocks, escapes HTML but not the subject', async () => {
    const response = await preview(welcome, { name: 'Ann <Admin> & "Co"', plan: '<i>Pro</i>', vip: true, ref: 'a&b' });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, subject: 'Welcome, Ann <Admin> & "Co"!', html: expect.any(String), text: expect.any(String) });
    const { html, text } = response.body;
    expect(html).toContain('>Hello Ann &lt;Admin&gt; &amp; &#34;Co&#34;</h1>');
    expect(html).toContain('Your plan is <strong>&lt;i&gt;Pro&lt;/i&gt;</strong>. Thanks for being a VIP.</p>');
    expect(html).toContain('href="https://app.example.com/account?ref=a&amp;b"');
    expect(html).not.toContain('<Admin>');
    expect(text).toBe(
      'Hello Ann <Admin> & "Co"\n\nYour plan is <i>Pro</i>. Thanks for being a VIP.\n\nOpen your account: https://app.example.com/account?ref=a&b',
    );
  });

  it('uses defaults for absent variables and skips false blocks', async () => {
    const response = await preview(welcome, { vip: '' });

    expect(response.body.subject).toBe('Welcome, friend!');
    expect(response.body.html).toContain('Your plan is <strong></strong>.</p>');
    expect(response.body.html).not.toContain('VIP');
  });

  it('provides the built-ins, with placeholder links a caller cannot override', async () => {
    const year = String(new Date().getUTCFullYear());

    const response = await preview(
      {
        name: 'Footer',
        subject: '{{currentYear}} news',
        components: [
          { type: 'text', content: '© {{currentYear}} · {{currentDate}}' },
          { type: 'button', label: 'Unsubscribe', url: '{{unsubscribeUrl}}' },
          { type: 'text', content: '<a href="{{preferencesUrl}}">Preferences</a>' },
        ],
      },
      { unsubscribeUrl: 'https://evil.example/u', currentYear: '1999' },
    );

    expect(response.status).toBe(200);
    expect(response.body.subject).toBe(`${year} news`);
    expect(response.body.html).toMatch(new RegExp(`© ${year} · [A-Z][a-z]+ \\d{1,2}, ${year}`));
    expect(response.body.html).toContain('href="#unsubscribe-preview"');
    expect(response.body.html).toContain('href="#preferences-preview"');
    expect(response.body.html).not.toContain('evil.example');
  });

  it('loops over nested variables with native Liquid', async () => {
    const receipt = {
      name: 'Receipt',
      subject: 'Order {{ order.id }}',
      components: [{ type: 'text', content: '{% for item in order.items %}{{ item.qty }} × {{ item.name }}<br>{% endfor %}' }],
    };

    const response = await preview(receipt, {
      order: {
        id: 'A-1',
        items: [
          { name: 'Mug', qty: 2 },
          { name: '<Tee>', qty: 1 },
        ],
      },
    });

    expect(response.body.subject).toBe('Order A-1');
    expect(response.body.html).toContain('2 × Mug<br>1 × &lt;Tee&gt;<br></p>');
    expect(response.body.text).toBe('2 × Mug\n1 × <Tee>');
  });

  it('answers 422 naming the template when rendering fails, quickly', async () => {
    const { key } = await createTestAccount();
    const hostile = await createTemplate(key, {
      name: 'Loop',
      subject: 'x',
      components: [{ type: 'text', content: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' }],
    });
    const badLink = await createTemplate(key, { name: 'Link', subject: 'x', components: [{ type: 'button', label: 'Go', url: '{{target}}' }] });
    const started = Date.now();

    const loop = await request('POST', `/api/templates/${hostile.id}/render`, { key, body: { variables: {} } });
    const script = await request('POST', `/api/templates/${badLink.id}/render`, { key, body: { variables: { target: 'javascript:alert(1)' } } });

    expect(Date.now() - started).toBeLessThan(3000);
    expect(loop.status).toBe(422);
    expect(loop.body).toEqual({
      success: false,
      error: 'VALIDATION_ERROR',
      field: 'templateId',
      message: expect.stringContaining(`Template ${hostile.id} could not be rendered: components[0].content`),
    });
    expect(script.body).toEqual({
      success: false,
      error: 'VALIDATION_ERROR',
      field: 'templateId',
      message: `Template ${badLink.id} could not be rendered: components[0].url: must render to an http(s) or mailto address`,
    });
  });

  it('validates the body: variables must be an object, nothing else is accepted', async () => {
    const { key } = await createTestAccount();
    const created = await createTemplate(key, welcome);

    const list = await request('POST', `/api/templates/${created.id}/render`, { key, body: { variables: ['a'] } });
    const extra = await request('POST', `/api/templates/${created.id}/render`, { key, body: { variables: {}, subject: 'x' } });
    const empty = await request('POST', `/api/templates/${created.id}/render`, { key, body: {} });

    expect(list.status).toBe(422);
    expect(list.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'variables' });
    expect(extra.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'subject' });
    expect(empty.status).toBe(200);
    expect(empty.body.subject).toBe('Welcome, friend!');
  });
});
