/** The Markdown the docs tests read: README.md and the guides, their fenced blocks and their links. */
import { readdirSync, readFileSync } from 'node:fs';

/** README.md first, then docs/*.md in name order. */
export const DOCUMENTS = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export interface FencedBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string split in words: `sh no-run` is `['sh', 'no-run']`. */
  info: string[];
  text: string;
}

/** Every fenced block (``` at any indentation, as list items hold them) in document order. */
export function fencedBlocks(file: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { line: number; info: string[]; indent: number; lines: string[] } | undefined;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const fence = /^( *)```(.*)$/.exec(text);
      if (!open) {
        if (fence) open = { line: index + 1, info: fence[2]!.trim().split(/\s+/).filter(Boolean), indent: fence[1]!.length, lines: [] };
        return;
      }
      if (fence && fence[2]!.trim() === '') {
        blocks.push({ file, line: open.line, info: open.info, text: open.lines.join('\n') });
        open = undefined;
        return;
      }
      open.lines.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
    });
  return blocks;
}

function withoutFences(file: string): string {
  return readFileSync(file, 'utf8').replace(/^( *)```[^\n]*\n[\s\S]*?\n\1```$/gm, '');
}

/** The Markdown outside fenced blocks and inline code spans, where links are links. */
export function prose(file: string): string {
  return withoutFences(file).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a document's headings make (outside fenced blocks). */
export function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(file).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(heading!.replace(/`/g, ''));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
