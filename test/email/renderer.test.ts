import { describe, expect, it } from 'vitest';
import { renderTemplate, TemplateRenderError } from '#shared/platform/templating/renderer.ts';
import { toLiquid } from '#shared/platform/templating/template-language.ts';

describe('template language', () => {
  it('rewrites the spec constructs into Liquid and leaves Liquid alone', () => {
    expect(toLiquid('Hi {{name}}')).toBe('Hi {{name}}');
    expect(toLiquid('{{ name | "friend" }}')).toBe('{{ name | default: "friend" }}');
    expect(toLiquid('{{#if vip}}gold{{else}}std{{/if}}')).toBe('{% if vip %}gold{% else %}std{% endif %}');
    expect(toLiquid('{% for i in items %}{{ i.name | upcase }}{% endfor %}')).toBe('{% for i in items %}{{ i.name | upcase }}{% endfor %}');
  });

  it('refuses unbalanced and unknown blocks', () => {
    expect(() => toLiquid('{{#if a}}x')).toThrow(/without \{\{\/if\}\}/);
    expect(() => toLiquid('x{{/if}}')).toThrow(/without \{\{#if\}\}/);
    expect(() => toLiquid('{{#each items}}{{/each}}')).toThrow(/Unsupported block/);
    expect(() => toLiquid('{{else}}')).toThrow(/outside/);
    expect(() => toLiquid('{{#if}}x{{/if}}')).toThrow(/needs a variable/);
  });
});

describe('renderTemplate', () => {
  const variables = {
    name: 'Ann <script>',
    plan: '',
    seats: 0,
    order: {
      items: [
        { name: 'Mug', qty: 2 },
        { name: 'Tee', qty: 1 },
      ],
    },
  };

  it('substitutes, defaults and branches with JavaScript truthiness', async () => {
    const html = await renderTemplate('{{name}}|{{missing|"friend"}}|{{#if plan}}paid{{else}}free{{/if}}|{{#if seats}}n{{/if}}', variables, 'html');

    expect(html).toBe('Ann &lt;script&gt;|friend|free|');
  });

  it('escapes variables in HTML and not in text', async () => {
    expect(await renderTemplate('<p>{{name}}</p>', variables, 'html')).toBe('<p>Ann &lt;script&gt;</p>');
    expect(await renderTemplate('Welcome {{name}}', variables, 'text')).toBe('Welcome Ann <script>');
  });

  it('loops over nested variables with native Liquid', async () => {
    const html = await renderTemplate('{% for item in order.items %}{{ item.name }} x{{ item.qty }};{% endfor %}', variables, 'html');

    expect(html).toBe('Mug x2;Tee x1;');
  });

  it('fails fast on hostile templates instead of hanging', async () => {
    const started = Date.now();
    await expect(renderTemplate('{% for i in (1..100000000) %}{{ i }}{% endfor %}', {}, 'html')).rejects.toBeInstanceOf(TemplateRenderError);
    await expect(renderTemplate('x'.repeat(300_000), {}, 'html')).rejects.toBeInstanceOf(TemplateRenderError);
    await expect(renderTemplate('{{ name | no_such_filter }}', variables, 'html')).rejects.toThrow(/undefined filter/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads no files and no prototype properties', async () => {
    await expect(renderTemplate('{% include "/etc/passwd" %}', {}, 'html')).rejects.toBeInstanceOf(TemplateRenderError);
    expect(await renderTemplate('[{{ name.constructor }}{{ order.__proto__ }}{{ order.toString }}]', variables, 'html')).toBe('[]');
  });
});
