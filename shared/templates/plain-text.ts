/** The plain-text alternative of every email, made from its HTML. */
import type { HtmlToTextOptions } from 'html-to-text';

/**
 * The plain-text part of an email: html-to-text (maintained, handles tables,
 * lists and entities) set up for mail: no wrapping (links stay whole), link
 * addresses in brackets after their text, headings and table headers in the
 * author's case, images left out, every table read as data so cells and rows
 * keep their separators (`Email   dave@example.com`, not `Emaildave@example.com`),
 * a blank line between rows (layout tables hold one block per row) and no
 * wrapping inside a cell.
 */
const TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { linkBrackets: ['(', ')'], hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, rowSpacing: 1, maxColumnWidth: 10_000 } },
  ],
};

/**
 * A plain-text rendering of an HTML fragment or document.
 *
 * `await htmlToText('<p>Hi <b>Ann</b></p><p><a href="https://x.io">Go</a></p>')` gives `Hi Ann\n\nGo (https://x.io)`
 */
export async function htmlToText(html: string): Promise<string> {
  const { convert } = await loadConverter();
  return convert(html, TEXT_OPTIONS).trim();
}

let converter: Promise<typeof import('html-to-text')> | undefined;

/**
 * Loaded on the first message composed, not at cold start: html-to-text and
 * its parser (with the `entities` decode tables it builds at load) are about
 * 190 KB that esbuild wraps in a function called only here, so a function
 * that never composes neither compiles nor runs them.
 */
function loadConverter(): Promise<typeof import('html-to-text')> {
  converter ??= import('html-to-text');
  return converter;
}

/** Deeper than any mail layout nests; email clients give up long before. */
export const MAX_HTML_NESTING = 256;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(\/?)>/g;

/**
 * How deep `html` nests elements, counted from its tags in one linear pass
 * (an over-estimate for markup that relies on implied end tags). The HTML
 * parser under html-to-text takes quadratic time in nesting depth (100,000
 * unclosed `<div>`s: seconds), so hostile depth is refused before it parses.
 */
export function nestingDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const [, closing, name, selfClosing] of html.matchAll(TAG)) {
    if (closing) depth = Math.max(0, depth - 1);
    else if (!selfClosing && !VOID_ELEMENTS.has(name!.toLowerCase())) deepest = Math.max(deepest, ++depth);
  }
  return deepest;
}
