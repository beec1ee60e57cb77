/**
 * Template components as email-safe HTML and plain text. The markup follows
 * what Gmail, Outlook (Word engine) and Apple Mail all render: nested
 * role="presentation" tables, every style inline, widths as attributes too,
 * a ghost table for Outlook's missing max-width, buttons as a coloured table
 * cell around a link. No <style> block, no external CSS or images, no script.
 *
 * Everything here receives parts already rendered by the template language
 * (shared/templates/compose.ts); style values come validated by
 * shared/templates/schema.ts and are escaped once more where they are written.
 */
import type { TemplateStyles } from './styles.ts';
import type { ComponentStyles } from './schema.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import { htmlToText } from './plain-text.ts';

/** Applied to a template that does not set them; stored with the template when it is saved. */
export const TEMPLATE_STYLE_DEFAULTS: TemplateStyles = { backgroundColor: '#ffffff', width: 600, padding: 24 };

/** A component after the template language ran: HTML for content and label, the final address for a button. */
export type RenderedComponent =
  | { type: 'heading'; html: string; level: 1 | 2; styles: ComponentStyles }
  | { type: 'text'; html: string; styles: ComponentStyles }
  | { type: 'button'; labelHtml: string; url: string; styles: ComponentStyles };

const FONT_FAMILY = 'Arial, Helvetica, sans-serif';
const SPACING_PX = 16;

const TEXT_DEFAULTS = {
  heading1: { fontSize: 28, fontWeight: 'bold', color: '#111827', lineHeight: '1.3' },
  heading2: { fontSize: 22, fontWeight: 'bold', color: '#111827', lineHeight: '1.3' },
  text: { fontSize: 16, fontWeight: 'normal', color: '#374151', lineHeight: '1.6' },
} as const;

const BUTTON_DEFAULTS = { fontSize: 16, fontWeight: 'bold', color: '#ffffff', backgroundColor: '#2563eb', borderRadius: 6 } as const;

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

/** Where a component's row places it: a button follows its textAlign (justify means left); text aligns itself. */
function rowAlign(component: RenderedComponent): 'left' | 'center' | 'right' {
  const wanted = component.type === 'button' ? component.styles.textAlign : undefined;
  return wanted === 'center' || wanted === 'right' ? wanted : 'left';
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
  return (
    `<table ${TABLE_ATTRIBUTES}${align === 'left' ? '' : ` align="${align}"`} style="border-collapse:separate;"><tr>` +
    `<td align="center" bgcolor="${escapeHtml(background)}" style="${style({ 'background-color': background, 'border-radius': radius })}">` +
    `${link}</td></tr></table>`
  );
}

function componentHtml(component: RenderedComponent): string {
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
  }
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
    const spacing = index === components.length - 1 ? '0' : `0 0 ${SPACING_PX}px 0`;
    return `<tr><td align="${rowAlign(component)}" style="padding:${spacing};">${componentHtml(component)}</td></tr>`;
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

/** The plain-text alternative: headings and text without tags, buttons as `label: url`, a blank line between. */
export async function componentsToText(components: readonly RenderedComponent[]): Promise<string> {
  const texts = await Promise.all(
    components.map(async (component) =>
      component.type === 'button' ? `${await htmlToText(component.labelHtml)}: ${component.url}` : htmlToText(component.html),
    ),
  );
  return texts.filter((text) => text !== '').join('\n\n');
}
