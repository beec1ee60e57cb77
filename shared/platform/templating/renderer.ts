import type { Liquid } from 'liquidjs';
import { RENDER_LIMITS } from './render-limits.ts';
import { TemplateSyntaxError, toLiquid } from './template-language.ts';

export { RENDER_LIMITS };

export class TemplateRenderError extends Error {
  override readonly name = 'TemplateRenderError';
}

let liquidjs: Promise<typeof import('liquidjs')> | undefined;

/**
 * liquidjs (80 KB) is loaded when the first template is parsed, not at cold
 * start: esbuild wraps a module reached by `import()` in a function, which a
 * function that never renders neither compiles nor runs.
 */
async function engine(escapesHtml: boolean): Promise<Liquid> {
  liquidjs ??= import('liquidjs');
  const { Liquid } = await liquidjs;
  return new Liquid({
    // No file system: `include`/`render` resolve only within this empty map.
    templates: {},
    ownPropertyOnly: true,
    jsTruthy: true,
    strictFilters: true,
    strictVariables: false,
    parseLimit: RENDER_LIMITS.parse,
    renderLimit: RENDER_LIMITS.render,
    memoryLimit: RENDER_LIMITS.memory,
    timezoneOffset: 0,
    ...(escapesHtml ? { outputEscape: 'escape' as const } : {}),
  });
}

/** Variables are HTML-escaped in content; subjects and plain text are not HTML. */
const engines: Partial<Record<'html' | 'text', Promise<Liquid>>> = {};
/**
 * Built on first use: modules that import this one only for its types or
 * limits (request schemas) then leave liquidjs out of their bundles.
 */
function engineFor(mode: 'html' | 'text'): Promise<Liquid> {
  return (engines[mode] ??= engine(mode === 'html'));
}

export type TemplateMode = 'html' | 'text';

/**
 * Renders the spec's syntax (and native Liquid) with `variables`, within
 * RENDER_LIMITS. Throws TemplateRenderError with a readable reason on a syntax
 * error, an unknown filter or an exceeded bound.
 */
export async function renderTemplate(source: string, variables: Record<string, unknown>, mode: TemplateMode): Promise<string> {
  const liquid = await engineFor(mode);
  let output: string;
  try {
    const parsed = liquid.parse(toLiquid(source));
    output = String(await liquid.render(parsed, variables));
  } catch (error) {
    throw toRenderError(error);
  }
  if (output.length > RENDER_LIMITS.output) throw new TemplateRenderError(`output exceeds ${RENDER_LIMITS.output} characters`);
  return output;
}

function toRenderError(error: unknown): TemplateRenderError {
  if (error instanceof TemplateSyntaxError) return new TemplateRenderError(error.message);
  const reason = error instanceof Error ? error.message.split('\n')[0] : 'render failed';
  return new TemplateRenderError(reason || 'render failed');
}

/**
 * Parses without rendering, so a stored template's syntax (blocks, tags,
 * filter names, size) is checked when it is saved rather than at its first send.
 * Throws TemplateRenderError as renderTemplate does.
 */
export async function checkTemplate(source: string): Promise<void> {
  const liquid = await engineFor('html');
  try {
    liquid.parse(toLiquid(source));
  } catch (error) {
    throw toRenderError(error);
  }
}

/**
 * The root names of the variables `sources` read from outside (`order` for
 * `{{ order.id }}`; a loop's own `item` is not one), each once, in order of
 * first use: the values a caller may give. Throws TemplateRenderError as
 * checkTemplate does.
 */
export async function variablesOf(sources: readonly string[]): Promise<string[]> {
  const liquid = await engineFor('html');
  const names = new Set<string>();
  for (const source of sources) {
    try {
      for (const name of liquid.globalVariablesSync(liquid.parse(toLiquid(source)))) names.add(name);
    } catch (error) {
      throw toRenderError(error);
    }
  }
  return [...names];
}
