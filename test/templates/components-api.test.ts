/**
 * The image, divider and spacer components over HTTP: stored, read back,
 * replaced, rendered (saved and draft), refused with the code and the field,
 * and sent: the message the SES emulator stored.
 */
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createTemplate, expectErrorReply, expectUpdatesRefused } from '../support/arrange.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';

const parts = [
  { type: 'heading', content: 'Spring sale' },
  {
    type: 'image',
    url: 'https://cdn.example.com/{{campaign}}/hero.png',
    alt: 'Flowers for {{name}}',
    href: 'https://shop.example.com/?c={{campaign}}',
    width: 480,
  },
  { type: 'divider', styles: { color: '#d1d5db', thickness: 2, margin: 8 } },
  { type: 'spacer', height: 32 },
  { type: 'image', url: 'https://cdn.example.com/logo.png', alt: '', styles: { textAlign: 'center' } },
  { type: 'spacer' },
];

const withComponents = (...components: unknown[]) => ({ name: 'x', subject: 'x', components });

describe('image, divider and spacer components', () => {
  it('are stored with their defaults, read back, replaced and rendered', async () => {
    const { key } = await createTestAccount();

    const created = await createTemplate(key, { name: 'Sale', subject: 'Sale', components: parts });
    const read = await request('GET', `/api/templates/${created.id}`, { key });
    const rendered = await request('POST', `/api/templates/${created.id}/render`, { key, body: { variables: { campaign: 'spring', name: 'Ann "A" <3' } } });
    const updated = await request('PATCH', `/api/templates/${created.id}`, { key, body: { components: [{ id: 'rule', type: 'divider' }] } });

    expect(created.components).toEqual([
      expect.objectContaining({ type: 'heading' }),
      { id: expect.stringMatching(/^cmp_/), ...parts[1], styles: {} },
      { id: expect.stringMatching(/^cmp_/), ...parts[2] },
      { id: expect.stringMatching(/^cmp_/), type: 'spacer', height: 32, styles: {} },
      { id: expect.stringMatching(/^cmp_/), ...parts[4] },
      { id: expect.stringMatching(/^cmp_/), type: 'spacer', height: 24, styles: {} },
    ]);
    expect(read.body.data).toEqual(created);
    expect(rendered.status).toBe(200);
    const { html, text } = rendered.body;
    expect(html).toContain(
      '<a href="https://shop.example.com/?c=spring" target="_blank" rel="noopener" style="text-decoration:none;">' +
        '<img src="https://cdn.example.com/spring/hero.png" alt="Flowers for Ann &quot;A&quot; &lt;3" width="480" style="display:block;border:0;outline:none;text-decoration:none;width:480px;height:auto;max-width:100%;"></a>',
    );
    expect(html).toContain('<img src="https://cdn.example.com/logo.png" alt="" width="600"');
    expect(html).toContain('<td height="2" bgcolor="#d1d5db"');
    expect(html).toContain('<td height="32" style="height:32px;');
    expect(text).toBe(`Spring sale\n\nFlowers for Ann "A" <3: https://shop.example.com/?c=spring\n\n${'-'.repeat(40)}`);
    expect(updated.body.data.components).toEqual([{ id: 'rule', type: 'divider', styles: {} }]);
  });

  it('refuses bad images, dividers and spacers with the code and the field', async () => {
    const { key } = await createTestAccount();
    const image = { type: 'image', url: 'https://cdn.example.com/a.png', alt: 'A' };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [withComponents({ type: 'text', content: 'x' }, { type: 'image', alt: 'A' }), 400, 'MISSING_REQUIRED_FIELD', 'components[1].url'],
      [withComponents({ ...image, alt: undefined }), 400, 'MISSING_REQUIRED_FIELD', 'components[0].alt'],
      [withComponents({ ...image, url: 'http://cdn.example.com/a.png' }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ ...image, url: 'javascript:alert(1)' }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ ...image, url: 'data:image/png;base64,iVBORw0KGgo=' }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ ...image, url: `https://cdn.example.com/${'a'.repeat(2_040)}` }), 422, 'VALIDATION_ERROR', 'components[0].url'],
      [withComponents({ ...image, alt: 'x'.repeat(501) }), 422, 'VALIDATION_ERROR', 'components[0].alt'],
      [withComponents({ ...image, alt: '{{#if x}}' }), 422, 'VALIDATION_ERROR', 'components[0].alt'],
      [withComponents({ ...image, href: 'javascript:alert(1)' }), 422, 'VALIDATION_ERROR', 'components[0].href'],
      [withComponents({ ...image, href: 'https://example.com', alt: '' }), 422, 'VALIDATION_ERROR', 'components[0].alt'],
      [withComponents({ ...image, width: 0 }), 422, 'VALIDATION_ERROR', 'components[0].width'],
      [withComponents({ ...image, width: 120.5 }), 422, 'VALIDATION_ERROR', 'components[0].width'],
      [withComponents({ ...image, width: 601 }), 422, 'VALIDATION_ERROR', 'components[0].width'],
      [{ ...withComponents(image, { ...image, width: 500 }), styles: { width: 480 } }, 422, 'VALIDATION_ERROR', 'components[1].width'],
      [withComponents({ ...image, styles: { color: 'red' } }), 422, 'VALIDATION_ERROR', 'components[0].styles.color'],
      [withComponents({ ...image, content: 'x' }), 422, 'VALIDATION_ERROR', 'components[0].content'],
      [withComponents({ type: 'divider', styles: { color: 'red;display:none' } }), 422, 'VALIDATION_ERROR', 'components[0].styles.color'],
      [withComponents({ type: 'divider', styles: { thickness: 11 } }), 422, 'VALIDATION_ERROR', 'components[0].styles.thickness'],
      [withComponents({ type: 'divider', styles: { margin: -1 } }), 422, 'VALIDATION_ERROR', 'components[0].styles.margin'],
      [withComponents({ type: 'divider', styles: { fontSize: 12 } }), 422, 'VALIDATION_ERROR', 'components[0].styles.fontSize'],
      [withComponents({ type: 'spacer', height: 201 }), 422, 'VALIDATION_ERROR', 'components[0].height'],
      [withComponents({ type: 'spacer', height: '24px' }), 422, 'VALIDATION_ERROR', 'components[0].height'],
      [withComponents({ type: 'spacer', styles: { height: 10 } }), 422, 'VALIDATION_ERROR', 'components[0].styles.height'],
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

  it('refuses the same in an update and changes nothing; a width is checked against the width the update gives', async () => {
    const { key } = await createTestAccount();
    const template = await createTemplate(key, { name: 'Logo', subject: 'x', components: [parts[4]], styles: { width: 700 } });
    const path = `/api/templates/${template.id}`;

    await expectUpdatesRefused(key, path, template, [
      [{ components: [{ type: 'image', url: 'http://cdn.example.com/a.png', alt: 'A' }] }, 422, 'VALIDATION_ERROR', 'components[0].url'],
      [{ components: [{ type: 'image', url: 'https://cdn.example.com/a.png', alt: 'A', width: 1201 }] }, 422, 'VALIDATION_ERROR', 'components[0].width'],
      [
        { components: [{ type: 'image', url: 'https://cdn.example.com/a.png', alt: 'A', width: 650 }], styles: { width: 600 } },
        422,
        'VALIDATION_ERROR',
        'components[0].width',
      ],
      [{ components: [{ type: 'spacer', height: 0 }] }, 422, 'VALIDATION_ERROR', 'components[0].height'],
    ]);
    // Without styles in the body the stored width (700) is not the schema's to know: accepted.
    const wider = await request('PATCH', path, { key, body: { components: [{ ...parts[4], width: 650 }] } });
    expect(wider.status).toBe(200);
  });

  it('never lets a variable turn an image or its link into script, nor its alt text into markup', async () => {
    const { key } = await createTestAccount();
    const draft = (component: Record<string, unknown>, variables: Record<string, unknown>) => ({
      key,
      body: { subject: 'x', components: [{ type: 'text', content: 'x' }, component], variables },
    });
    const image = { type: 'image', url: '{{src}}', alt: '{{alt}}', href: '{{link}}' };
    const good = { src: 'https://cdn.example.com/a.png', alt: 'A', link: 'https://example.com' };

    const script = await request('POST', '/api/templates/render', draft(image, { ...good, src: 'javascript:alert(1)' }));
    const plain = await request('POST', '/api/templates/render', draft(image, { ...good, src: 'http://cdn.example.com/a.png' }));
    const long = await request('POST', '/api/templates/render', draft(image, { ...good, src: `https://cdn.example.com/${'a'.repeat(2_048)}` }));
    const link = await request('POST', '/api/templates/render', draft(image, { ...good, link: ' JavaScript:alert(1)' }));
    const markup = await request('POST', '/api/templates/render', draft(image, { ...good, alt: '"><script>alert(1)</script>' }));

    expectErrorReply(script, 422, { error: 'VALIDATION_ERROR', field: 'components[1].url', message: 'components[1].url: must render to an https address' });
    expect(plain.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'components[1].url' });
    expect(long.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'components[1].url', message: expect.stringContaining('at most 2048 characters') });
    expect(link.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'components[1].href' });
    expect(markup.status).toBe(200);
    expect(markup.body.html).toContain('alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(markup.body.html).not.toMatch(/<script/i);
    expect(markup.body.variables).toEqual(['src', 'alt', 'link']);
  });
});

describe('sending a template with an image', () => {
  it('delivers the image, the divider and the alt text in the plain part, with List-Unsubscribe for an image linked to it', async () => {
    const sender = await createSender();
    const template = await createTemplate(sender.key, {
      name: 'News',
      subject: 'News',
      components: [
        { type: 'image', url: 'https://cdn.example.com/{{issue}}.png', alt: 'Issue {{issue}}', width: 300 },
        { type: 'divider' },
        { type: 'image', url: 'https://cdn.example.com/bye.png', alt: 'Unsubscribe', href: '{{unsubscribeUrl}}' },
      ],
    });
    const recipient = uniqueAddress();

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [recipient], templateId: template.id, variables: { issue: '42' } },
    });

    expect(response.status).toBe(200);
    const [email] = await storedEmails(sender.domain);
    expect(email!.body.html).toContain('<img src="https://cdn.example.com/42.png" alt="Issue 42" width="300"');
    expect(email!.body.html).toMatch(
      /<a href="https?:\/\/[^"]+" target="_blank" rel="noopener" style="text-decoration:none;"><img src="https:\/\/cdn.example.com\/bye.png"/,
    );
    expect(email!.body.html).toContain('mso-line-height-rule:exactly;background-color:#e5e7eb;');
    expect(email!.body.html).not.toMatch(/<script|<hr/i);
    expect(email!.body.text).toMatch(new RegExp(`^Issue 42\\n\\n${'-'.repeat(40)}\\n\\nUnsubscribe: https?://\\S+$`));
    expect(email!.headers?.map((header) => header.name)).toEqual(['List-Unsubscribe', 'List-Unsubscribe-Post']);
  });
});
