import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { createTemplate, renderInlineContent, renderStoredTemplate } from '#shared/templates/service.ts';
import { builtinVariables } from '#shared/templates/builtins.ts';
import { MESSAGE_RENDER_BUDGET_MS } from '#shared/templates/compose.ts';
import { PostlaneError } from '#shared/platform/errors.ts';
import { RENDER_LIMITS } from '#shared/platform/templating/render-limits.ts';
import type { CreateTemplateInput } from '#shared/templates/schema.ts';

const now = new Date('2026-11-21T10:00:00Z');
const links = { unsubscribeUrl: 'https://api.example.com/unsubscribe/t0ken', preferencesUrl: 'https://api.example.com/preferences/t0ken' };
const builtins = builtinVariables(now, links);

const newsletter: CreateTemplateInput = {
  name: 'Newsletter',
  subject: 'News for {{name|"you"}}',
  components: [
    { type: 'heading', content: 'Hi {{name}}' },
    { type: 'text', content: 'Sent {{currentDate}}. <a href="{{preferencesUrl}}">Preferences</a>' },
    { type: 'button', label: 'Unsubscribe', url: '{{unsubscribeUrl}}' },
  ],
  styles: {},
};

/** The error a promise rejects with, as the envelope would show it. */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(PostlaneError);
  const { code, message, details } = error as PostlaneError;
  return { code, message, field: details.field };
}

describe('renderStoredTemplate', () => {
  it('renders subject, HTML and text with the recipient links, which variables cannot replace', async () => {
    const { accountId } = await createTestAccount();
    const template = await createTemplate(accountId, newsletter, now);

    const rendered = await renderStoredTemplate(accountId, template.id, { name: 'Zoë <3', unsubscribeUrl: 'https://evil.example' }, { builtins });

    expect(rendered.subject).toBe('News for Zoë <3');
    expect(rendered.html).toContain('<title>News for Zoë &lt;3</title>');
    expect(rendered.html).toContain('>Hi Zoë &lt;3</h1>');
    expect(rendered.html).toContain(`<a href="${links.unsubscribeUrl}" target="_blank"`);
    expect(rendered.html).toContain(`<a href="${links.preferencesUrl}">Preferences</a>`);
    expect(rendered.html).not.toContain('evil.example');
    expect(rendered.text).toBe(`Hi Zoë <3\n\nSent November 21, 2026. Preferences (${links.preferencesUrl})\n\nUnsubscribe: ${links.unsubscribeUrl}`);
    expect(rendered.usesUnsubscribeLink).toBe(true);
  });

  it("replaces the template's subject with the request's, variables included", async () => {
    const { accountId } = await createTestAccount();
    const template = await createTemplate(accountId, newsletter, now);

    const rendered = await renderStoredTemplate(accountId, template.id, { order: { id: 42 } }, { subject: 'Order #{{ order.id }} & more\r\nBcc: x', builtins });

    expect(rendered.subject).toBe('Order #42 & more Bcc: x');
    expect(rendered.html).toContain('<title>Order #42 &amp; more Bcc: x</title>');
  });

  it('says when no unsubscribe link is used', async () => {
    const { accountId } = await createTestAccount();
    const template = await createTemplate(
      accountId,
      { name: 'Receipt', subject: 'Receipt', components: [{ type: 'text', content: 'Thanks' }], styles: {} },
      now,
    );

    const rendered = await renderStoredTemplate(accountId, template.id, {}, { builtins });

    expect(rendered.usesUnsubscribeLink).toBe(false);
    expect(rendered.text).toBe('Thanks');
  });

  it('is TEMPLATE_NOT_FOUND on templateId for unknown, malformed and foreign ids', async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const template = await createTemplate(owner.accountId, newsletter, now);
    const expected = { code: 'TEMPLATE_NOT_FOUND', message: 'Template not found', field: 'templateId' };

    expect(await failure(renderStoredTemplate(stranger.accountId, template.id, {}, { builtins }))).toEqual(expected);
    expect(await failure(renderStoredTemplate(owner.accountId, 'tpl_00000000000000000000', {}, { builtins }))).toEqual(expected);
    expect(await failure(renderStoredTemplate(owner.accountId, '../../etc', {}, { builtins }))).toEqual(expected);
  });

  it('is a 422 VALIDATION_ERROR naming the template when rendering fails, on subject when the request subject fails', async () => {
    const { accountId } = await createTestAccount();
    const template = await createTemplate(
      accountId,
      { name: 'Link', subject: 'x', components: [{ type: 'button', label: 'Go', url: '{{target}}' }], styles: {} },
      now,
    );

    expect(await failure(renderStoredTemplate(accountId, template.id, { target: ' javascript:alert(1)' }, { builtins }))).toEqual({
      code: 'VALIDATION_ERROR',
      message: `Template ${template.id} could not be rendered: components[0].url: must render to an http(s) or mailto address`,
      field: 'templateId',
    });
    expect(
      await failure(renderStoredTemplate(accountId, template.id, { target: 'https://ok.example' }, { subject: 'Hi {{ name | nope }}', builtins })),
    ).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^The subject could not be rendered: subject: undefined filter: nope/),
      field: 'subject',
    });
  });

  it('stops a template whose parts are each within bounds but together too slow', async () => {
    const { accountId } = await createTestAccount();
    // Sized on this machine now, a tenth of the per-render limit: a fixed loop is well within that limit when idle and past it under load, and a part slowed past it would stop on that limit instead. 100 parts still take 2.5 times the message budget.
    const iterations = await loopIterationsTaking(RENDER_LIMITS.render / 10);
    const slowPart = { type: 'text' as const, content: `{% for i in (1..${iterations}) %}{% endfor %}x` };
    const template = await createTemplate(accountId, { name: 'Slow', subject: 'x', components: Array.from({ length: 100 }, () => slowPart), styles: {} }, now);
    const started = performance.now();

    const error = await failure(renderStoredTemplate(accountId, template.id, {}, { builtins }));

    expect(performance.now() - started).toBeLessThan(MESSAGE_RENDER_BUDGET_MS + 1000);
    expect(error).toEqual({ code: 'VALIDATION_ERROR', field: 'templateId', message: expect.stringMatching(/took longer than 1000 ms/) });
  });

  it('stops hostile loops and huge outputs quickly', async () => {
    const { accountId } = await createTestAccount();
    const hostile = [
      '{% for i in (1..100000000) %}{{ i }}{% endfor %}',
      '{% for a in (1..3000) %}{% for b in (1..3000) %}x{% endfor %}{% endfor %}',
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    ];
    const templates = await Promise.all(
      hostile.map((content, index) =>
        createTemplate(accountId, { name: `Hostile ${index}`, subject: 'x', components: [{ type: 'text', content }], styles: {} }, now),
      ),
    );
    const started = performance.now();

    const errors = await Promise.all(templates.map((template) => failure(renderStoredTemplate(accountId, template.id, {}, { builtins }))));

    expect(performance.now() - started).toBeLessThan(3000);
    for (const error of errors) expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'templateId' });
  });
});

describe('renderInlineContent', () => {
  it('escapes variables in the HTML, not in the subject, and derives the text from the HTML', async () => {
    const rendered = await renderInlineContent(
      '<h1>Hello {{name}}</h1><p>{{#if code}}Your code: <b>{{code}}</b>{{/if}}</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a> · {{currentYear}}</p>',
      'Hi {{name}} — {{missing|"welcome"}}',
      { name: 'Ann & <Bob>', code: '12-34' },
      builtins,
    );

    expect(rendered).toEqual({
      subject: 'Hi Ann & <Bob> — welcome',
      html: `<h1>Hello Ann &amp; &lt;Bob&gt;</h1><p>Your code: <b>12-34</b></p><p><a href="${links.unsubscribeUrl}">Unsubscribe</a> · 2026</p>`,
      text: `Hello Ann & <Bob>\n\nYour code: 12-34\n\nUnsubscribe (${links.unsubscribeUrl}) · 2026`,
      usesUnsubscribeLink: true,
    });
  });

  it('reports no unsubscribe link when the content has none', async () => {
    const rendered = await renderInlineContent('<p>Receipt</p>', 'Receipt', {}, builtins);

    expect(rendered.usesUnsubscribeLink).toBe(false);
  });

  it('is a 422 on content or subject when rendering fails', async () => {
    expect(await failure(renderInlineContent('<p>{{#if a}}open</p>', 'ok', {}, builtins))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'content',
      message: 'The content could not be rendered: content: {{#if}} without {{/if}}',
    });
    expect(await failure(renderInlineContent('<p>ok</p>', '{% for i in (1..100000000) %}x{% endfor %}', {}, builtins))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'subject',
    });
  });
});

/** How many iterations of an empty Liquid loop take about `ms` here, now: the median of three timed renders of a probe loop. */
async function loopIterationsTaking(ms: number): Promise<number> {
  const probe = 20_000;
  const engine = new Liquid();
  const template = engine.parse(`{% for i in (1..${probe}) %}{% endfor %}`);
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    await engine.render(template, {});
    times.push(performance.now() - started);
  }
  const median = times.sort((a, b) => a - b)[1]!;
  return Math.max(1_000, Math.round((probe * ms) / Math.max(median, 0.1)));
}
