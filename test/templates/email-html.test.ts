import { describe, expect, it } from 'vitest';
import { builtinVariables, PREVIEW_LINKS, withBuiltins } from '#shared/templates/builtins.ts';
import { componentsToHtml, componentsToText, TEMPLATE_STYLE_DEFAULTS, type RenderedComponent } from '#shared/templates/components.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import { htmlToText, nestingDepth } from '#shared/templates/plain-text.ts';
import { isButtonUrl, isCssColor, isEmailSafeMarkup, isImageUrl } from '#shared/templates/schema.ts';

const components: RenderedComponent[] = [
  { type: 'heading', html: 'Welcome &amp; hello', level: 1, styles: { fontSize: 32, color: '#123456', textAlign: 'center' } },
  { type: 'heading', html: 'Details', level: 2, styles: {} },
  { type: 'text', html: 'Plan: <strong>Pro</strong>', styles: { backgroundColor: 'lavender', borderRadius: 8, fontWeight: '600' } },
  {
    type: 'button',
    labelHtml: 'Open &lt;now&gt;',
    url: 'https://app.example.com/?a=1&b="2"',
    styles: { backgroundColor: 'rgb(10, 20, 30)', color: 'white', textAlign: 'right', borderRadius: 12 },
  },
];

/** Every start tag in the markup, with its name and attribute text. */
function tags(html: string): { name: string; attributes: string }[] {
  return [...html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/gi)].map((match) => ({ name: match[1]!.toLowerCase(), attributes: match[2]! }));
}

describe('components as email HTML', () => {
  const html = componentsToHtml('Hi <you>', components, { backgroundColor: '#eeeeee', width: 520, padding: 16 });

  it('is a whole document with no style block, script, external stylesheet or other link', () => {
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">')).toBe(true);
    expect(html).toContain('<title>Hi &lt;you&gt;</title>');
    expect(html.endsWith('</body>\n</html>')).toBe(true);
    expect(html).not.toMatch(/<style|<script|<link|@import|javascript:/i);
    expect(
      tags(html)
        .filter((tag) => /\b(?:href|src)=/.test(tag.attributes))
        .map((tag) => tag.attributes.match(/href="([^"]*)"/)?.[1]),
    ).toEqual(['https://app.example.com/?a=1&amp;b=&quot;2&quot;']);
  });

  it('lays out with presentation tables, the width as attribute for Outlook and as max-width elsewhere', () => {
    const tables = tags(html).filter((tag) => tag.name === 'table');
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) expect(table.attributes).toContain('role="presentation"');
    expect(html).toContain(
      '<!--[if mso]><table role="presentation" cellpadding="0" cellspacing="0" border="0" width="520" align="center"><tr><td><![endif]-->',
    );
    expect(html).toContain('style="width:100%;max-width:520px;margin:0 auto;border-collapse:collapse;"');
    expect(html).toContain('<body style="margin:0;padding:0;width:100%;background-color:#eeeeee;">');
    expect(html).toContain('<tr><td align="center" style="padding:16px;">');
  });

  it('styles every element inline', () => {
    for (const tag of tags(html).filter((tag) => ['h1', 'h2', 'p', 'a', 'body'].includes(tag.name))) {
      expect(tag.attributes, tag.name).toMatch(/ style="[^"]+"/);
    }
    expect(html).toContain(
      '<h1 style="margin:0;font-family:Arial, Helvetica, sans-serif;font-size:32px;line-height:1.3;font-weight:bold;color:#123456;text-align:center;">Welcome &amp; hello</h1>',
    );
    expect(html).toContain(
      '<h2 style="margin:0;font-family:Arial, Helvetica, sans-serif;font-size:22px;line-height:1.3;font-weight:bold;color:#111827;text-align:left;">Details</h2>',
    );
    expect(html).toContain(
      '<td bgcolor="lavender" style="background-color:lavender;border-radius:8px;padding:12px 16px;"><p style="margin:0;font-family:Arial, Helvetica, sans-serif;font-size:16px;line-height:1.6;font-weight:600;color:#374151;text-align:left;">Plan: <strong>Pro</strong></p></td>',
    );
  });

  it('makes buttons bulletproof: the colour on the cell, the link inside, aligned by textAlign', () => {
    expect(html).toContain(
      '<tr><td align="right" style="padding:0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0" align="right" style="border-collapse:separate;"><tr>' +
        '<td align="center" bgcolor="rgb(10, 20, 30)" style="background-color:rgb(10, 20, 30);border-radius:12px;">' +
        '<a href="https://app.example.com/?a=1&amp;b=&quot;2&quot;" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;font-family:Arial, Helvetica, sans-serif;font-size:16px;font-weight:bold;line-height:1.2;color:white;text-decoration:none;border-radius:12px;">Open &lt;now&gt;</a>' +
        '</td></tr></table></td></tr>',
    );
  });

  it('spaces components apart but not after the last one', () => {
    expect(html.match(/<tr><td align="(?:left|right)" style="padding:0 0 16px 0;">/g)).toHaveLength(3);
    expect(html.match(/<tr><td align="right" style="padding:0;">/g)).toHaveLength(1);
  });

  it('uses the defaults: white, 600 pixels, 24 padding', () => {
    const plain = componentsToHtml('x', [{ type: 'text', html: 'x', styles: {} }], TEMPLATE_STYLE_DEFAULTS);

    expect(plain).toContain('max-width:600px');
    expect(plain).toContain('width="600"');
    expect(plain).toContain('background-color:#ffffff');
    expect(plain).toContain('padding:24px;');
  });
});

describe('images, dividers and spacers as email HTML', () => {
  const parts: RenderedComponent[] = [
    { type: 'text', html: 'Before', styles: {} },
    { type: 'image', url: 'https://cdn.example.com/logo.png?a=1&b="2"', alt: 'Acme "logo" <b>', width: 200, styles: { textAlign: 'center' } },
    { type: 'image', url: 'https://cdn.example.com/hero.png', alt: 'Our spring sale', href: 'https://shop.example.com/?s=1&t=2', styles: {} },
    { type: 'image', url: 'https://cdn.example.com/wide.png', alt: '', width: 900, styles: { textAlign: 'right' } },
    { type: 'divider', styles: {} },
    { type: 'divider', styles: { color: 'navy', thickness: 3, margin: 12 } },
    { type: 'spacer', height: 40 },
    { type: 'text', html: 'After', styles: {} },
  ];
  const html = componentsToHtml('Parts', parts, { backgroundColor: '#ffffff', width: 560, padding: 24 });
  const images = tags(html).filter((tag) => tag.name === 'img');

  it('writes each image with its width as an attribute, alt text, and the inline styles every client needs', () => {
    expect(images.map((image) => image.attributes)).toEqual([
      ' src="https://cdn.example.com/logo.png?a=1&amp;b=&quot;2&quot;" alt="Acme &quot;logo&quot; &lt;b&gt;" width="200" style="display:block;border:0;outline:none;text-decoration:none;width:200px;height:auto;max-width:100%;"',
      // Without a width an image fills the column; a width beyond it (the template narrowed later) is drawn at the column's.
      ' src="https://cdn.example.com/hero.png" alt="Our spring sale" width="560" style="display:block;border:0;outline:none;text-decoration:none;width:560px;height:auto;max-width:100%;"',
      ' src="https://cdn.example.com/wide.png" alt="" width="560" style="display:block;border:0;outline:none;text-decoration:none;width:560px;height:auto;max-width:100%;"',
    ]);
  });

  it('aligns an image by a table the row aligns, and links it when it has an address', () => {
    expect(html).toContain(
      '<tr><td align="center" style="padding:0 0 16px 0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0" align="center" style="border-collapse:collapse;"><tr><td><img ',
    );
    expect(html).toContain(
      '<td><a href="https://shop.example.com/?s=1&amp;t=2" target="_blank" rel="noopener" style="text-decoration:none;"><img src="https://cdn.example.com/hero.png"',
    );
    expect(html).toContain(
      '<tr><td align="right" style="padding:0 0 16px 0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0" align="right"',
    );
  });

  it('draws a divider as a coloured cell of fixed height, not an <hr>', () => {
    expect(html).not.toMatch(/<hr/i);
    expect(html).toContain(
      '<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="width:100%;border-collapse:collapse;"><tr>' +
        '<td height="1" bgcolor="#e5e7eb" style="height:1px;font-size:0;line-height:0;mso-line-height-rule:exactly;background-color:#e5e7eb;">&nbsp;</td></tr></table>',
    );
    expect(html).toContain(
      '<td style="padding:12px 0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="width:100%;border-collapse:collapse;"><tr>' +
        '<td height="3" bgcolor="navy" style="height:3px;font-size:0;line-height:0;mso-line-height-rule:exactly;background-color:navy;">&nbsp;</td></tr></table></td>',
    );
  });

  it('makes a spacer a cell exactly its height, which is the whole gap between its neighbours', () => {
    expect(html).toContain(
      '<tr><td align="left" style="padding:0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="width:100%;border-collapse:collapse;"><tr>' +
        '<td height="40" style="height:40px;font-size:0;line-height:0;mso-line-height-rule:exactly;">&nbsp;</td></tr></table></td></tr>',
    );
    // The divider before the spacer and the spacer itself add no 16 px of their own.
    expect(html.match(/style="padding:0 0 16px 0;"/g)).toHaveLength(5);
  });

  it('adds no script, style block or other remote resource than the images', () => {
    expect(html).not.toMatch(/<style|<script|<link|@import|javascript:/i);
    expect(tags(html).filter((tag) => /\bsrc=/.test(tag.attributes))).toHaveLength(3);
  });

  it('reads in plain text as alt text (with the link), a line of dashes and a blank line', async () => {
    expect(await componentsToText(parts)).toBe(
      `Before\n\nAcme "logo" <b>\n\nOur spring sale: https://shop.example.com/?s=1&t=2\n\n${'-'.repeat(40)}\n\n${'-'.repeat(40)}\n\n\nAfter`,
    );
  });
});

describe('plain-text alternative of components', () => {
  it('has headings and text without tags, buttons as label: url, blank lines between', async () => {
    expect(await componentsToText(components)).toBe('Welcome & hello\n\nDetails\n\nPlan: Pro\n\nOpen <now>: https://app.example.com/?a=1&b="2"');
  });
});

describe('htmlToText', () => {
  it('keeps link addresses, line breaks and list items, drops head, style, script and comments', async () => {
    const html =
      '<html><head><title>T</title><style>p{color:red}</style></head><body><!--[if mso]>x<![endif]-->' +
      '<h1>News &amp; notes</h1><p>Line one<br>line two</p><ul><li>first</li><li>second</li></ul>' +
      '<script>alert(1)</script><p>Read <a href="https://example.com/a?x=1&amp;y=2">the post</a> or https://example.com/b</p>' +
      '<p><a href="https://example.com/b">https://example.com/b</a> <a href="#top">top</a></p></body></html>';

    expect(await htmlToText(html)).toBe(
      'News & notes\n\nLine one\nline two\n\n- first\n- second\n\nRead the post (https://example.com/a?x=1&y=2) or https://example.com/b\n\nhttps://example.com/b top',
    );
  });

  it('keeps escaped text as text: a variable that looked like a tag survives', async () => {
    expect(await htmlToText(`<p>${escapeHtml('<b>Ann</b> & "Bo"')}</p>`)).toBe('<b>Ann</b> & "Bo"');
  });

  it('keeps table cells and rows apart', async () => {
    const html = '<table><tr><th>Field</th><th>Value</th></tr><tr><td>Email</td><td>dave@example.com</td></tr><tr><td>Total</td><td>$10</td></tr></table>';

    const lines = (await htmlToText(html)).split('\n').filter((line) => line !== '');

    expect(lines.map((line) => line.split(/\s{2,}/))).toEqual([
      ['Field', 'Value'],
      ['Email', 'dave@example.com'],
      ['Total', '$10'],
    ]);
  });
});

describe('nestingDepth', () => {
  it('counts open elements, not void or self-closed ones', () => {
    expect(nestingDepth('<table><tr><td><p>a<br><img src="x"/></p></td></tr></table>')).toBe(4);
    expect(nestingDepth('<div></div><div><span>x</span></div>')).toBe(2);
    expect(nestingDepth('<div>'.repeat(100_000))).toBe(100_000);
  });
});

describe('built-in variables', () => {
  it('gives the year, the date in words (UTC) and the links', () => {
    const links = { unsubscribeUrl: 'https://api.example.com/u/abc', preferencesUrl: 'https://api.example.com/p/abc' };

    expect(builtinVariables(new Date('2026-11-21T23:30:00-05:00'), links)).toEqual({
      currentYear: '2026',
      currentDate: 'November 22, 2026',
      ...links,
    });
  });

  it('uses preview placeholders without links', () => {
    expect(builtinVariables(new Date('2027-01-02T00:00:00Z'))).toEqual({ currentYear: '2027', currentDate: 'January 2, 2027', ...PREVIEW_LINKS });
  });

  it('win over caller variables of the same name', () => {
    const scope = withBuiltins(
      { name: 'Ann', unsubscribeUrl: 'https://evil.example', currentYear: '1999' },
      builtinVariables(new Date('2026-05-01T00:00:00Z')),
    );

    expect(scope).toEqual({ name: 'Ann', currentYear: '2026', currentDate: 'May 1, 2026', ...PREVIEW_LINKS });
  });
});

/** Each of `accepted` passes `check` and each of `refused` fails it; a failure names the value. */
function expectAcceptsOnly(check: (value: string) => boolean, accepted: string[], refused: string[]): void {
  for (const value of accepted) expect(check(value), value).toBe(true);
  for (const value of refused) expect(check(value), value).toBe(false);
}

describe('style and link values', () => {
  it('accepts only the colour forms both Gmail and Outlook read', () => {
    expectAcceptsOnly(
      isCssColor,
      ['#fff', '#a1b2c3', 'rgb(0, 128, 255)', 'rgb(255,255,255)', 'navy', 'rebeccapurple', 'transparent'],
      ['#ffff', '#12345g', 'rgb(256, 0, 0)', 'rgba(0,0,0,0.5)', 'red;color:blue', 'red" onclick="x', 'url(x)', 'expression(alert(1))', 'notacolour', ''],
    );
  });

  it('lets buttons point at http(s), mailto or one variable, never at script', () => {
    expectAcceptsOnly(
      isButtonUrl,
      ['https://example.com', 'http://example.com/x?y={{id}}', 'mailto:a@example.com', '{{unsubscribeUrl}}', '{{ link | "https://example.com" }}'],
      ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'vbscript:x', 'https://', '//example.com', 'x {{link}}', '{{a}}{{b}}'],
    );
  });

  it('lets images load only from https or one variable', () => {
    expectAcceptsOnly(
      isImageUrl,
      ['https://cdn.example.com/a.png', 'HTTPS://cdn.example.com/{{id}}.png', '{{logoUrl}}', '{{ logo | "https://cdn.example.com/a.png" }}'],
      [
        'http://cdn.example.com/a.png',
        'javascript:alert(1)',
        'data:image/png;base64,iVBORw0KGgo=',
        'mailto:a@example.com',
        '//cdn.example.com/a.png',
        'https://',
        'x {{logoUrl}}',
      ],
    );
  });

  it('refuses markup that scripts or restyles the email in content', () => {
    expectAcceptsOnly(
      isEmailSafeMarkup,
      ['<strong>Hi</strong> <a href="https://example.com">x</a>', '<img src="https://example.com/logo.png" alt="Logo">', 'once = twice, only = one'],
      [
        '<script>x</script>',
        '< SCRIPT>',
        '<style>',
        '<link rel="stylesheet" href="x">',
        '<iframe src="x">',
        '<form>',
        '<img src=x onerror=alert(1)>',
        '<a href="javascript:x">',
        "<a href = ' javascript:x'>",
        '<svg onload=x>',
      ],
    );
  });
});
