/**
 * The spec's template syntax on top of Liquid. Three constructs are not Liquid
 * and are rewritten before parsing; everything else is passed to Liquid as is,
 * so native tags (`{% for %}`) and filters work too.
 *
 *   {{name}}                → {{ name }}
 *   {{name|"default"}}      → {{ name | default: "default" }}
 *   {{#if name}}…{{else}}…{{/if}} → {% if name %}…{% else %}…{% endif %}
 *
 * Anything else that opens with `{{#`, `{{/` or `{{^` (Handlebars blocks this
 * service does not have) is an error, not silently printed text.
 */

export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
}

const PATH = String.raw`[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\d+\])*`;
const DEFAULTED = new RegExp(String.raw`\{\{\s*(${PATH})\s*\|\s*"((?:[^"\\]|\\.)*)"\s*\}\}`, 'g');
/**
 * One pattern part per character class, so nothing can backtrack: the keyword
 * and argument are split in code. (Overlapping `\s*` runs here made an unclosed
 * `{{#` followed by spaces take minutes to reject.)
 */
const BLOCK = /\{\{\s*([#/^])([^{}]*)\}\}|\{\{\s*else\s*\}\}/g;

/** Rewrites the spec's constructs into Liquid; throws TemplateSyntaxError for unbalanced or unknown blocks. */
export function toLiquid(source: string): string {
  const withDefaults = source.replace(DEFAULTED, (_match, path: string, fallback: string) => `{{ ${path} | default: "${fallback}" }}`);
  let depth = 0;
  const rewritten = withDefaults.replace(BLOCK, (match, sigil: string | undefined, inside: string | undefined) => {
    const body = inside?.trim() ?? '';
    const keyword = /^[a-z]*/.exec(body)![0];
    const argument = body.slice(keyword.length).trim();
    if (sigil === undefined) {
      if (depth === 0) throw new TemplateSyntaxError('{{else}} outside {{#if}}');
      return '{% else %}';
    }
    if (sigil === '#' && keyword === 'if') {
      if (!argument || !new RegExp(`^${PATH}$`).test(argument)) throw new TemplateSyntaxError(`{{#if}} needs a variable name: ${match}`);
      depth++;
      return `{% if ${argument} %}`;
    }
    if (sigil === '/' && keyword === 'if' && !argument) {
      if (depth === 0) throw new TemplateSyntaxError('{{/if}} without {{#if}}');
      depth--;
      return '{% endif %}';
    }
    throw new TemplateSyntaxError(`Unsupported block ${match}: use {{#if name}}…{{/if}} or Liquid tags`);
  });
  if (depth !== 0) throw new TemplateSyntaxError('{{#if}} without {{/if}}');
  return rewritten;
}
