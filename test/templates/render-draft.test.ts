/**
 * POST /api/templates/render: the dashboard's live preview of a template as
 * it is being written, before (or without) saving it.
 */
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { expectErrorReply } from '../support/arrange.ts';

const draft = {
  subject: 'Hi {{firstName|"there"}}',
  components: [
    { type: 'heading', content: 'Order {{ order.id }}' },
    { type: 'text', content: '{% for item in order.items %}{{ item.name }}{% endfor %}{{#if vip}} VIP{{/if}} {{currentYear}}' },
    { type: 'button', label: 'Manage', url: '{{unsubscribeUrl}}' },
  ],
  styles: { backgroundColor: '#fafafa', width: 480, padding: 12 },
};

describe('render a draft', () => {
  it('renders subject, HTML and text as a saved template would, and names the variables it reads', async () => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/templates/render', {
      key,
      body: { ...draft, variables: { firstName: 'Ada <A>', order: { id: 'A-1', items: [{ name: 'Mug' }] }, vip: true } },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      subject: 'Hi Ada <A>',
      html: expect.any(String),
      text: expect.stringContaining('Order A-1'),
      // Built-ins (currentYear, unsubscribeUrl) and a loop's own `item` are not the caller's to give.
      variables: ['firstName', 'order', 'vip'],
    });
    expect(response.body.html).toContain('max-width:480px');
    expect(response.body.html).toContain('background-color:#fafafa');
    expect(response.body.html).toContain('Mug VIP');
    expect(response.body.html).toContain('href="#unsubscribe-preview"');
    expect(response.body.html).not.toMatch(/<script/i);
  });

  it('stores nothing: the account still has no template', async () => {
    const { key } = await createTestAccount();

    await request('POST', '/api/templates/render', { key, body: draft });
    const list = await request('GET', '/api/templates', { key });

    expect(list.body.templates).toEqual([]);
  });

  it('names the failing part as the field: syntax, a link rendering to no address, a bad style', async () => {
    const { key } = await createTestAccount();
    const withParts = (components: unknown[]) => ({ subject: 'x', components });

    const syntax = await request('POST', '/api/templates/render', {
      key,
      body: withParts([
        { type: 'text', content: 'ok' },
        { type: 'text', content: '{{#if a}}' },
      ]),
    });
    const link = await request('POST', '/api/templates/render', {
      key,
      body: { ...withParts([{ type: 'button', label: 'Go', url: '{{target}}' }]), variables: { target: 'javascript:alert(1)' } },
    });
    const width = await request('POST', '/api/templates/render', { key, body: { subject: 'x', styles: { width: 10 } } });
    const noSubject = await request('POST', '/api/templates/render', { key, body: {} });

    expectErrorReply(syntax, 422, { error: 'VALIDATION_ERROR', field: 'components[1].content', message: expect.stringContaining('{{#if}} without {{/if}}') });
    expectErrorReply(link, 422, {
      error: 'VALIDATION_ERROR',
      field: 'components[0].url',
      message: 'components[0].url: must render to an http(s) or mailto address',
    });
    expectErrorReply(width, 422, { error: 'VALIDATION_ERROR', field: 'styles.width', message: expect.any(String) });
    expectErrorReply(noSubject, 400, { error: 'MISSING_REQUIRED_FIELD', field: 'subject', message: expect.any(String) });
  });

  it('is refused without a key or session, and to sending-only keys', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });

    const anonymous = await request('POST', '/api/templates/render', { body: draft });
    const sending = await request('POST', '/api/templates/render', { key, body: draft });

    expect(anonymous.status).toBe(401);
    expect(sending.status).toBe(403);
  });
});
