/**
 * A whole message from its sources: subject, body and plain-text alternative,
 * every part through the template language within one shared budget.
 */
import type { TemplateStyles } from './styles.ts';
import { componentParts, SPACER_DEFAULT_HEIGHT, TEMPLATE_LIMITS, type TemplateComponent } from './schema.ts';
import { componentsToHtml, componentsToText, type RenderedComponent } from './components.ts';
import { htmlToText, MAX_HTML_NESTING, nestingDepth } from './plain-text.ts';
import { RENDER_LIMITS, renderTemplate, TemplateRenderError, type TemplateMode } from '#shared/platform/templating/renderer.ts';

/** What a stored template renders from. */
export interface TemplateDesign {
  subject: string;
  components: readonly TemplateComponent[];
  styles: TemplateStyles;
}

export interface RenderedEmail {
  /** Plain text on one line: variables unescaped, line breaks folded, so it is safe as a header. */
  subject: string;
  html: string;
  text: string;
  /** The source refers to `unsubscribeUrl`: the transport adds List-Unsubscribe headers. */
  usesUnsubscribeLink: boolean;
}

/**
 * Each renderTemplate call is bounded on its own, but a template has up to 300
 * parts (an image's url, alt and href for each of 100 components): without a
 * shared budget a hostile one could take 300 × the per-call limit.
 */
export const MESSAGE_RENDER_BUDGET_MS = 1_000;

/** A failure that names the part of the message it happened in: `subject`, `content`, `components[2].url`. */
export class TemplatePartError extends TemplateRenderError {
  constructor(
    readonly part: string,
    readonly reason: string,
  ) {
    super(`${part}: ${reason}`);
  }
}

let lastTurn: Promise<void> = Promise.resolve();

/**
 * Messages of one process render one at a time. Rendering is CPU-bound on
 * one thread, so renders in flight together gain nothing and each would
 * count the others' time against its own wall-clock bounds: a send giving
 * 100 cc and bcc addresses messages of their own failed the 250 ms limit on
 * a busy machine. In turn, each bound measures its own message.
 */
async function inTurn<T>(render: () => Promise<T>): Promise<T> {
  const previous = lastTurn;
  let done!: () => void;
  lastTurn = new Promise((resolve) => {
    done = resolve;
  });
  await previous;
  try {
    return await render();
  } finally {
    done();
  }
}

/** Renders the parts of one message, all within MESSAGE_RENDER_BUDGET_MS and RENDER_LIMITS.output together. */
class MessageRender {
  private readonly deadline = performance.now() + MESSAGE_RENDER_BUDGET_MS;
  private outputChars = 0;

  constructor(private readonly scope: Record<string, unknown>) {}

  async part(part: string, source: string, mode: TemplateMode): Promise<string> {
    if (performance.now() > this.deadline) throw new TemplatePartError(part, `the message took longer than ${MESSAGE_RENDER_BUDGET_MS} ms to render`);
    let output: string;
    try {
      // Text without a brace has nothing for the template language to do, in either mode.
      output = source.includes('{') ? await renderTemplate(source, this.scope, mode) : source;
    } catch (error) {
      if (error instanceof TemplateRenderError) throw new TemplatePartError(part, error.message);
      throw error;
    }
    this.outputChars += output.length;
    if (this.outputChars > RENDER_LIMITS.output) throw new TemplatePartError(part, `the message exceeds ${RENDER_LIMITS.output} characters`);
    if (mode === 'html' && nestingDepth(output) > MAX_HTML_NESTING) throw new TemplatePartError(part, `nests HTML elements more than ${MAX_HTML_NESTING} deep`);
    return output;
  }

  /** Subjects are headers: a variable's line break must not start a new one. */
  async subject(source: string): Promise<string> {
    return (await this.part('subject', source, 'text')).replace(/\s+/g, ' ').trim();
  }

  /** A button's or an image link's address, rendered unescaped so its scheme can be checked; a variable cannot turn it into `javascript:`. */
  async link(part: string, source: string): Promise<string> {
    const url = (await this.part(part, source, 'text')).trim();
    if (!RENDERED_LINK.test(url)) throw new TemplatePartError(part, 'must render to an http(s) or mailto address');
    return url;
  }

  /** An image's address, rendered unescaped and checked as a link is: https only, no longer than a stored one may be. */
  async imageUrl(part: string, source: string): Promise<string> {
    const url = (await this.part(part, source, 'text')).trim();
    if (!RENDERED_IMAGE_URL.test(url)) throw new TemplatePartError(part, 'must render to an https address');
    if (url.length > TEMPLATE_LIMITS.url) throw new TemplatePartError(part, `must render to at most ${TEMPLATE_LIMITS.url} characters`);
    return url;
  }

  /** Plain text for an attribute (an image's alt): rendered unescaped, escaped once where it is written; line breaks folded. */
  async attributeText(part: string, source: string): Promise<string> {
    return (await this.part(part, source, 'text')).replace(/\s+/g, ' ').trim();
  }
}

/** `#…` is allowed for the preview placeholders of the built-in links. */
const RENDERED_LINK = /^(?:https?:\/\/[^\s/?#]\S*|mailto:\S+|#\S*)$/i;
const RENDERED_IMAGE_URL = /^https:\/\/[^\s/?#]\S*$/i;
const UNSUBSCRIBE_REFERENCE = /\bunsubscribeUrl\b/;

/** The parts of a component a message renders, as RenderedComponent holds them. */
async function renderComponent(render: MessageRender, component: TemplateComponent, at: string): Promise<RenderedComponent> {
  switch (component.type) {
    case 'heading':
      return {
        type: 'heading',
        html: await render.part(`${at}.content`, component.content, 'html'),
        level: component.level ?? 1,
        styles: component.styles ?? {},
      };
    case 'text':
      return { type: 'text', html: await render.part(`${at}.content`, component.content, 'html'), styles: component.styles ?? {} };
    case 'button': {
      const labelHtml = await render.part(`${at}.label`, component.label, 'html');
      return { type: 'button', labelHtml, url: await render.link(`${at}.url`, component.url), styles: component.styles ?? {} };
    }
    case 'image': {
      const url = await render.imageUrl(`${at}.url`, component.url);
      const alt = await render.attributeText(`${at}.alt`, component.alt);
      const href = component.href === undefined ? undefined : await render.link(`${at}.href`, component.href);
      return { type: 'image', url, alt, href, width: component.width, styles: component.styles ?? {} };
    }
    case 'divider':
      return { type: 'divider', styles: component.styles ?? {} };
    case 'spacer':
      return { type: 'spacer', height: component.height ?? SPACER_DEFAULT_HEIGHT };
  }
}

/**
 * Subject, HTML document and plain text of a stored template for one set of
 * variables (built-ins already merged in). Throws TemplatePartError naming the
 * part that failed.
 */
export function renderDesign(design: TemplateDesign, scope: Record<string, unknown>): Promise<RenderedEmail> {
  return inTurn(() => renderDesignNow(design, scope));
}

async function renderDesignNow(design: TemplateDesign, scope: Record<string, unknown>): Promise<RenderedEmail> {
  const render = new MessageRender(scope);
  const subject = await render.subject(design.subject);
  const rendered: RenderedComponent[] = [];
  for (const [index, component] of design.components.entries()) rendered.push(await renderComponent(render, component, `components[${index}]`));
  return {
    subject,
    html: componentsToHtml(subject, rendered, design.styles),
    text: await componentsToText(rendered),
    usesUnsubscribeLink: design.components.some((component) => componentParts(component).some(([, source]) => UNSUBSCRIBE_REFERENCE.test(source))),
  };
}

/**
 * A message whose body is the sender's own HTML: rendered as given (variables
 * escaped), the plain text derived from the result. Parts are `subject` and `content`.
 */
export function renderHtmlContent(content: string, subject: string, scope: Record<string, unknown>): Promise<RenderedEmail> {
  return inTurn(async () => {
    const render = new MessageRender(scope);
    const renderedSubject = await render.subject(subject);
    const html = await render.part('content', content, 'html');
    return { subject: renderedSubject, html, text: await htmlToText(html), usesUnsubscribeLink: UNSUBSCRIBE_REFERENCE.test(content) };
  });
}
