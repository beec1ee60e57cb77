/**
 * The preview loads nothing remote (no third-party request from the
 * dashboard, and no image host learns who is writing what), so an image
 * component would show as a broken-image icon. In its place the preview
 * draws a grey box of the image's width with its alt text: where the image
 * goes, how wide it is, and what it says without it. The address stays in
 * `data-src`.
 */

const REMOTE_IMAGE = /<img\b[^>]*?\ssrc="(https?:[^"]*)"[^>]*>/gi;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag)?.[1];
}

/** A grey box `width` pixels wide, a quarter as high (at least 40), with `label` in its middle, as a data: URL. */
function placeholder(width: number, label: string): string {
  const height = Math.max(40, Math.round(width / 4));
  const text = label.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!).replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="100%" height="100%" fill="#e5e7eb"/>` +
    `<text x="50%" y="50%" dominant-baseline="middle" text-anchor="middle" font-family="Arial, sans-serif" font-size="14" fill="#374151">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** `html` with each remote `<img>` drawing a placeholder instead: `src` replaced, the address kept as `data-src`. */
export function withImagePlaceholders(html: string): string {
  return html.replace(REMOTE_IMAGE, (tag, src: string) => {
    const width = Number(attribute(tag, 'width')) || 600;
    const alt = attribute(tag, 'alt');
    const label = alt === undefined || alt === '' ? 'Image' : alt;
    return tag.replace(` src="${src}"`, ` src="${placeholder(width, label)}" data-src="${src}"`);
  });
}
