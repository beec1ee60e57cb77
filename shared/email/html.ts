/** Small HTML helpers for building email bodies and their plain-text alternatives. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ',
  copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»',
  euro: '€', pound: '£', yen: '¥', cent: '¢', middot: '·', bull: '•', deg: '°',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(['head', 'script', 'style', 'title']);
const BLOCK_END = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div', 'table', 'ul', 'ol', 'blockquote']);
const LINE_END = new Set(['tr']);

function hrefOf(tag: string): string | undefined {
  const match = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3] ?? '').trim() : undefined;
}

/**
 * A plain-text rendering of an HTML fragment or document: scripts, styles,
 * comments and the head dropped, block ends become line breaks, links keep
 * their address (`Open (https://x)`), entities decoded. A variable's `<`,
 * escaped by the renderer, stays text: tags are read before entities are
 * decoded. One pass over the input (no backtracking regex), so a hostile
 * body of unclosed tags costs linear time.
 *
 * `htmlToText('<p>Hi <b>Ann</b></p><p><a href="https://x.io">Go</a></p>')` gives `Hi Ann\n\nGo (https://x.io)`
 */
export function htmlToText(html: string): string {
  let out = '';
  let hiddenUntil: string | undefined;
  const links: { href: string | undefined; start: number }[] = [];
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    const textEnd = open === -1 ? html.length : open;
    if (!hiddenUntil) out += html.slice(position, textEnd).replace(/[ \t\r\n]+/g, ' ');
    if (open === -1) break;
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      position = close === -1 ? html.length : close + 3;
      continue;
    }
    const close = html.indexOf('>', open);
    // `<!DOCTYPE html>` and other declarations are markup, not text.
    if (close !== -1 && /^<![A-Za-z]/.test(html.slice(open, open + 3))) {
      position = close + 1;
      continue;
    }
    if (close === -1) {
      if (!hiddenUntil) out += html.slice(open).replace(/[ \t\r\n]+/g, ' ');
      break;
    }
    position = close + 1;
    const tag = html.slice(open, position);
    const name = /^<\/?\s*([a-z][a-z0-9]*)/i.exec(tag)?.[1]?.toLowerCase();
    if (!name) {
      if (!hiddenUntil) out += tag;
      continue;
    }
    const closing = tag[1] === '/';
    if (hiddenUntil) {
      if (closing && name === hiddenUntil) hiddenUntil = undefined;
      continue;
    }
    if (!closing && HIDDEN.has(name)) hiddenUntil = name;
    else if (name === 'br') out += '\n';
    else if (name === 'li' && !closing) out += '\n- ';
    else if (name === 'a' && !closing) links.push({ href: hrefOf(tag), start: out.length });
    else if (name === 'a') {
      const link = links.pop();
      const label = link ? decodeEntities(out.slice(link.start)).trim() : '';
      const href = link?.href;
      // Escaped again because the whole text is decoded once at the end.
      if (href && !href.startsWith('#') && label !== href) out += escapeHtml(label ? ` (${href})` : href);
    } else if (closing && BLOCK_END.has(name)) out += '\n\n';
    else if (closing && LINE_END.has(name)) out += '\n';
  }
  return decodeEntities(out)
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
