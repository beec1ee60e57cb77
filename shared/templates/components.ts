/**
 * Template components as email-safe HTML and plain text. The markup follows
 * what Gmail, Outlook (Word engine) and Apple Mail all render: nested
 * role="presentation" tables, every style inline, widths as attributes too,
 * a ghost table for Outlook's missing max-width, buttons as a coloured table
 * cell around a link, images with a width attribute (Outlook draws an image
 * at its file's size without one), dividers and spacers as table cells of a
 * fixed height (Outlook's Word engine ignores most styling of <hr> and
 * grows an empty cell to a line of text). No <style> block, no external
 * CSS, no script; the only remote resource is an image the author placed.
 *
 * Everything here receives parts already rendered by the template language
 * (shared/templates/compose.ts); style values come validated by
 * shared/templates/schema.ts and are escaped once more where they are written.
 */
import { TEMPLATE_WIDTH_DEFAULT, type TemplateStyles } from './styles.ts';
import type { ComponentStyles, DividerStyles, ImageStyles } from './schema.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import { htmlToText } from './plain-text.ts';

/** Applied to a template that does not set them; stored with the template when it is saved. */
export const TEMPLATE_STYLE_DEFAULTS: TemplateStyles = { backgroundColor: '#ffffff', width: TEMPLATE_WIDTH_DEFAULT, padding: 24 };

/** A component after the template language ran: HTML for content and label, the final address for a button. */
export type RenderedComponent =
  | { type: 'heading'; html: string; level: 1 | 2; styles: ComponentStyles }
  | { type: 'text'; html: string; styles: ComponentStyles }
  | { type: 'button'; labelHtml: string; url: string; styles: ComponentStyles }
  /** `alt` is plain text, `url` and `href` final addresses: each escaped once here. */
  | { type: 'image'; url: string; alt: string; href?: string; width?: number; styles: ImageStyles }
  | { type: 'divider'; styles: DividerStyles }
  | { type: 'spacer'; height: number };

const FONT_FAMILY = 'Arial, Helvetica, sans-serif';
const SPACING_PX = 16;

const TEXT_DEFAULTS = {
  heading1: { fontSize: 28, fontWeight: 'bold', color: '#111827', lineHeight: '1.3' },
  heading2: { fontSize: 22, fontWeight: 'bold', color: '#111827', lineHeight: '1.3' },
  text: { fontSize: 16, fontWeight: 'normal', color: '#374151', lineHeight: '1.6' },
} as const;

const BUTTON_DEFAULTS = { fontSize: 16, fontWeight: 'bold', color: '#ffffff', backgroundColor: '#2563eb', borderRadius: 6 } as const;

const DIVIDER_DEFAULTS = { color: '#e5e7eb', thickness: 1, margin: 0 } as const;

/** What the plain text shows for a divider: html-to-text's own line for <hr>. */
export const TEXT_DIVIDER = '-'.repeat(40);

/** `{'font-size': '16px', color: undefined}` becomes `font-size:16px;`, escaped for a double-quoted attribute. */
function style(declarations: Record<string, string | number | undefined>): string {
  const text = Object.entries(declarations)
    .filter(([, value]) => value !== undefined)
    .map(([property, value]) => `${property}:${value};`)
    .join('');
  return escapeHtml(text);
}

const px = (value: number | undefined) => (value === undefined ? undefined : `${value}px`);

const TABLE_ATTRIBUTES = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';

/** A block of text (heading or paragraph); a background colour gets a padded cell of its own. */
function textBlock(tag: 'h1' | 'h2' | 'p', html: string, styles: ComponentStyles, defaults: (typeof TEXT_DEFAULTS)[keyof typeof TEXT_DEFAULTS]): string {
  const element = `<${tag} style="${style({
    margin: '0',
    'font-family': FONT_FAMILY,
    'font-size': px(styles.fontSize ?? defaults.fontSize),
    'line-height': defaults.lineHeight,
    'font-weight': styles.fontWeight ?? defaults.fontWeight,
    color: styles.color ?? defaults.color,
    'text-align': styles.textAlign ?? 'left',
  })}">${html}</${tag}>`;
  if (!styles.backgroundColor) return element;
  const background = escapeHtml(styles.backgroundColor);
  return (
    `<table ${TABLE_ATTRIBUTES} width="100%" style="width:100%;border-collapse:separate;"><tr>` +
    `<td bgcolor="${background}" style="${style({ 'background-color': styles.backgroundColor, 'border-radius': px(styles.borderRadius), padding: '12px 16px' })}">` +
    `${element}</td></tr></table>`
  );
}

/** Where a component's row places it: a button or an image follows its textAlign (justify means left); text aligns itself. */
function rowAlign(component: RenderedComponent): 'left' | 'center' | 'right' {
  const wanted = component.type === 'button' || component.type === 'image' ? component.styles.textAlign : undefined;
  return wanted === 'center' || wanted === 'right' ? wanted : 'left';
}

/** A table the row aligns (`align` on a table is what Outlook and Gmail both follow), around one cell. */
function alignedTable(align: 'left' | 'center' | 'right', cell: string, tableStyle: string): string {
  return `<table ${TABLE_ATTRIBUTES}${align === 'left' ? '' : ` align="${align}"`} style="${tableStyle}"><tr>${cell}</tr></table>`;
}

/**
 * An image `width` pixels wide (the column's width unless given), never wider
 * than the screen (max-width, with height:auto keeping its proportions), with
 * no border or gap below (display:block) and, as a link, no outline.
 */
function imageBlock(component: Extract<RenderedComponent, { type: 'image' }>, columnWidth: number, align: 'left' | 'center' | 'right'): string {
  const width = Math.min(component.width ?? columnWidth, columnWidth);
  const image = `<img src="${escapeHtml(component.url)}" alt="${escapeHtml(component.alt)}" width="${width}" style="${style({
    display: 'block',
    border: '0',
    outline: 'none',
    'text-decoration': 'none',
    width: `${width}px`,
    height: 'auto',
    'max-width': '100%',
  })}">`;
  const linked =
    component.href === undefined ? image : `<a href="${escapeHtml(component.href)}" target="_blank" rel="noopener" style="text-decoration:none;">${image}</a>`;
  return alignedTable(align, `<td>${linked}</td>`, 'border-collapse:collapse;');
}

/** A cell exactly `height` pixels high in every client: no text line can grow it (font-size and line-height 0, exactly in Outlook). */
function fixedHeightCell(height: number, color?: string): string {
  const background = color === undefined ? '' : ` bgcolor="${escapeHtml(color)}"`;
  return `<td height="${height}"${background} style="${style({
    height: `${height}px`,
    'font-size': '0',
    'line-height': '0',
    'mso-line-height-rule': 'exactly',
    'background-color': color,
  })}">&nbsp;</td>`;
}

/** A horizontal line as a coloured cell the column's width, `margin` pixels of space above and below it. */
function dividerBlock(styles: DividerStyles): string {
  const margin = styles.margin ?? DIVIDER_DEFAULTS.margin;
  const line = `<table ${TABLE_ATTRIBUTES} width="100%" style="width:100%;border-collapse:collapse;"><tr>${fixedHeightCell(
    styles.thickness ?? DIVIDER_DEFAULTS.thickness,
    styles.color ?? DIVIDER_DEFAULTS.color,
  )}</tr></table>`;
  return margin === 0
    ? line
    : `<table ${TABLE_ATTRIBUTES} width="100%" style="width:100%;border-collapse:collapse;"><tr><td style="padding:${margin}px 0;">${line}</td></tr></table>`;
}

function spacerBlock(height: number): string {
  return `<table ${TABLE_ATTRIBUTES} width="100%" style="width:100%;border-collapse:collapse;"><tr>${fixedHeightCell(height)}</tr></table>`;
}

/** A "bulletproof" button: the colour sits on the table cell, so it shows where the link's padding does not (Outlook). */
function buttonBlock(labelHtml: string, url: string, styles: ComponentStyles, align: 'left' | 'center' | 'right'): string {
  const background = styles.backgroundColor ?? BUTTON_DEFAULTS.backgroundColor;
  const radius = px(styles.borderRadius ?? BUTTON_DEFAULTS.borderRadius);
  const link = `<a href="${escapeHtml(url)}" target="_blank" rel="noopener" style="${style({
    display: 'inline-block',
    padding: '12px 24px',
    'font-family': FONT_FAMILY,
    'font-size': px(styles.fontSize ?? BUTTON_DEFAULTS.fontSize),
    'font-weight': styles.fontWeight ?? BUTTON_DEFAULTS.fontWeight,
    'line-height': '1.2',
    color: styles.color ?? BUTTON_DEFAULTS.color,
    'text-decoration': 'none',
    'border-radius': radius,
  })}">${labelHtml}</a>`;
  return alignedTable(
    align,
    `<td align="center" bgcolor="${escapeHtml(background)}" style="${style({ 'background-color': background, 'border-radius': radius })}">${link}</td>`,
    'border-collapse:separate;',
  );
}

function componentHtml(component: RenderedComponent, columnWidth: number): string {
  switch (component.type) {
    case 'heading':
      return textBlock(
        component.level === 2 ? 'h2' : 'h1',
        component.html,
        component.styles,
        component.level === 2 ? TEXT_DEFAULTS.heading2 : TEXT_DEFAULTS.heading1,
      );
    case 'text':
      return textBlock('p', component.html, component.styles, TEXT_DEFAULTS.text);
    case 'button':
      return buttonBlock(component.labelHtml, component.url, component.styles, rowAlign(component));
    case 'image':
      return imageBlock(component, columnWidth, rowAlign(component));
    case 'divider':
      return dividerBlock(component.styles);
    case 'spacer':
      return spacerBlock(component.height);
  }
}

/** Components are SPACING_PX apart, except around a spacer: its height is the whole gap. */
function spacingAfter(components: readonly RenderedComponent[], index: number): number {
  const next = components[index + 1];
  return next === undefined || next.type === 'spacer' || components[index]!.type === 'spacer' ? 0 : SPACING_PX;
}

/**
 * The whole HTML document: the template's background across the full width,
 * a centred column `styles.width` pixels wide at most (full width on phones),
 * one table row per component.
 */
export function componentsToHtml(title: string, components: readonly RenderedComponent[], styles: TemplateStyles): string {
  const background = escapeHtml(styles.backgroundColor);
  const width = Number(styles.width);
  const rows = components.map((component, index) => {
    const spacing = spacingAfter(components, index);
    return `<tr><td align="${rowAlign(component)}" style="padding:${spacing === 0 ? '0' : `0 0 ${spacing}px 0`};">${componentHtml(component, width)}</td></tr>`;
  });
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta http-equiv="X-UA-Compatible" content="IE=edge">',
    '<meta name="x-apple-disable-message-reformatting">',
    `<title>${escapeHtml(title)}</title>`,
    '</head>',
    `<body style="margin:0;padding:0;width:100%;background-color:${background};">`,
    `<table ${TABLE_ATTRIBUTES} width="100%" bgcolor="${background}" style="width:100%;border-collapse:collapse;background-color:${background};">`,
    `<tr><td align="center" style="padding:${Number(styles.padding)}px;">`,
    // Outlook's Word engine ignores max-width: a fixed-width table only it sees.
    `<!--[if mso]><table ${TABLE_ATTRIBUTES} width="${width}" align="center"><tr><td><![endif]-->`,
    `<table ${TABLE_ATTRIBUTES} width="100%" style="width:100%;max-width:${width}px;margin:0 auto;border-collapse:collapse;">`,
    ...rows,
    '</table>',
    '<!--[if mso]></td></tr></table><![endif]-->',
    '</td></tr>',
    '</table>',
    '</body>',
    '</html>',
  ].join('\n');
}

async function componentText(component: RenderedComponent): Promise<string> {
  switch (component.type) {
    case 'heading':
    case 'text':
      return htmlToText(component.html);
    case 'button':
      return `${await htmlToText(component.labelHtml)}: ${component.url}`;
    case 'image':
      // A decorative image (alt "") has nothing to say; a linked one always has alt text (the schema sees to it).
      return component.href === undefined || component.alt === '' ? component.alt : `${component.alt}: ${component.href}`;
    case 'divider':
      return TEXT_DIVIDER;
    case 'spacer':
      return '';
  }
}

/**
 * The plain-text alternative: headings and text without tags, buttons as
 * `label: url`, images as their alt text (`alt: href` when linked), dividers
 * as a line of dashes, a blank line between; each spacer adds a blank line.
 */
export async function componentsToText(components: readonly RenderedComponent[]): Promise<string> {
  const texts = await Promise.all(components.map(componentText));
  let out = '';
  let spacers = 0;
  for (const [index, text] of texts.entries()) {
    if (components[index]!.type === 'spacer') spacers += 1;
    if (text === '') continue;
    out += out === '' ? text : `\n\n${'\n'.repeat(spacers)}${text}`;
    spacers = 0;
  }
  return out;
}
