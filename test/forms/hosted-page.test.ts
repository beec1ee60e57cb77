import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { formPage } from '#shared/forms/pages.ts';
import type { FormRecord } from '#shared/forms/store.ts';
import { createForm, accountWithForm } from './support.ts';

const FIELDS = [
  { id: 'email', type: 'email', label: 'Email', required: true, placeholder: 'you@example.com' },
  { id: 'plan', type: 'select', label: 'Plan', options: ['Free', 'Pro <beta>'] },
  { id: 'topics', type: 'checkbox', label: 'Topics', options: ['News', 'Offers'], required: true },
  { id: 'score', type: 'rating', label: 'How likely?' },
  { id: 'note', type: 'textarea', label: 'Note' },
];

describe('hosted form page', () => {
  it('renders the published form as an accessible, mobile-friendly page that posts to the submit endpoint', async () => {
    const { form } = await accountWithForm({
      title: 'Join <us> & "friends"',
      description: 'Line one\nLine <two>',
      fields: FIELDS,
      buttonCustomization: { text: 'Sign me up', variant: 'outline' },
    });

    const response = await request('GET', `/f/${form.slug}`);
    const page: string = response.body;

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<title>Join &lt;us&gt; &amp; &quot;friends&quot;</title>');
    expect(page).toContain('<p class="description">Line one\nLine &lt;two&gt;</p>');
    expect(page).toContain(`<form id="postlane-form" method="post" action="../api/forms/${form.slug}/submit">`);
    expect(page).toContain('<label for="f-email">Email<span class="req" aria-hidden="true">*</span></label>');
    expect(page).toContain(
      '<input type="email" id="f-email" name="email" required placeholder="you@example.com" autocomplete="email" value="" aria-describedby="f-email-error">',
    );
    expect(page).toContain('<p class="error" id="f-email-error" hidden></p>');
    expect(page).toContain('<option value="Pro &lt;beta&gt;">Pro &lt;beta&gt;</option>');
    expect(page).toContain(
      '<fieldset class="field" data-field="topics" data-type="checkbox" data-required="true"><legend>Topics<span class="req" aria-hidden="true">*</span></legend>',
    );
    expect(page).toContain('<label class="choice"><input type="radio" name="score" value="5" aria-describedby="f-score-error"> 5</label>');
    expect(page).toContain('<input type="text" id="f-_hp" name="_hp" tabindex="-1" autocomplete="off">');
    expect(page).toContain('<button type="submit" class="btn-outline">Sign me up</button>');
    expect(page).not.toContain('<us>');
  });

  it('allows exactly its own inline script by hash', async () => {
    const { form } = await accountWithForm();

    const response = await request('GET', `/f/${form.slug}`);

    const script = /<script>([\s\S]*)<\/script>/.exec(response.body)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(response.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'`,
    );
  });

  it('puts the appearance in the page CSS, and only values of a safe shape', async () => {
    const { form } = await accountWithForm({
      appearance: { backgroundColor: '#f0f0f0', primaryColor: 'rebeccapurple', fontFamily: 'Georgia, "Times New Roman", serif' },
    });
    const stored = {
      formId: form.id,
      ...form,
      appearance: { backgroundColor: 'red;}</style><script>alert(1)</script>', primaryColor: '#123', fontFamily: 'x{}' },
    } as unknown as FormRecord;

    const page: string = (await request('GET', `/f/${form.slug}`)).body;
    const hostile = formPage(stored).body as string;

    expect(page).toContain(':root{--bg:#f0f0f0;--primary:rebeccapurple;--font:Georgia, "Times New Roman", serif}');
    expect(hostile).toContain(':root{--bg:#ffffff;--primary:#123;--font:system-ui, sans-serif}');
    expect(hostile).not.toContain('alert(1)');
  });

  it('counts each page view in the analytics', async () => {
    const { key, form } = await accountWithForm();

    await request('GET', `/f/${form.slug}`);
    await request('GET', `/f/${form.slug}`);

    expect((await request('GET', '/api/forms', { key })).body.forms[0].analytics).toEqual({ views: 2, submissions: 0, conversionRate: 0 });
  });

  it('answers a 404 page for unpublished and unknown forms, counting nothing', async () => {
    const { key } = await createTestAccount();
    const hidden = await createForm(key, { published: false });

    for (const path of [`/f/${hidden.slug}`, '/f/no-such-form-anywhere', `/f/${hidden.id}`, '/f/%3Cscript%3E']) {
      const response = await request('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<h1>This form is not available</h1>');
    }
    expect((await request('GET', '/api/forms', { key })).body.forms[0].analytics.views).toBe(0);
  });
});
