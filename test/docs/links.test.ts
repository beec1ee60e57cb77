/**
 * No document or comment may send a reader to something the repository does
 * not hold: relative links in README.md and docs/*.md resolve (anchors too),
 * paths of docs and source files named anywhere exist, and nothing cites the
 * documents this project was planned from, which a clone does not have.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, DOCUMENTS, prose } from './markdown.ts';

/** Generated, installed or local-only trees: not written by hand, or not in a clone. */
const SKIPPED = new Set(['node_modules', '.git', '.data', 'cdk.out', 'coverage', 'dist']);
const TEXT = /\.(ts|mjs|js|md|json|java|yml|yaml|sh)$/;
/** Files whose made-up paths are on purpose: this one's broken examples, the import checker's fixtures. */
const FICTIONAL_PATHS = new Set(['test/docs/links.test.ts', 'test/architecture/layers.test.ts']);

function trackedFiles(dir = '.'): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = dir === '.' ? name : join(dir, name);
    if (statSync(path).isDirectory()) return trackedFiles(path);
    return TEXT.test(name) && name !== 'package-lock.json' && !FICTIONAL_PATHS.has(path) ? [path] : [];
  });
}

/** A path as written from `file`: from the repository's root or from the file's own folder. */
function exists(file: string, path: string): boolean {
  return existsSync(path) || existsSync(normalize(join(dirname(file), path)));
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

describe('links and references', () => {
  it.each(DOCUMENTS)('every relative link in %s points to a file of the repository, and to a heading of it', (file) => {
    const broken: string[] = [];
    for (const [, target] of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(resolved)) broken.push(`${target}: no file ${resolved}`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    }
    expect(broken).toEqual([]);
  });

  it('no file names a document or source path that does not exist', () => {
    // `docs/api.md`, `../README.md` (from docs/), `shared/platform/aws/s3.ts`: Markdown files anywhere, and paths into the project's own folders.
    const reference =
      /(?<![\w./@$-])((?:\.\.?\/)*(?:[\w.-]+\/)*[\w.-]+\.md)\b|(?<![\w./@$-])#?((?:shared|dev|functions|lib|bin|test|bench|scripts|docs)\/[\w./-]*\.(?:ts|mjs|md|json))\b/g;
    const missing: string[] = [];
    for (const file of trackedFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(reference)) {
        const path = match[1] ?? match[2]!;
        if (!exists(file, path)) missing.push(`${file}:${lineOf(text, match.index)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('nothing cites the planning documents a clone does not have: the spec, the product decisions, the local contract, the platform notes', () => {
    const citation = /\bspec('s)? section\b|\bspec \d+(\.\d+)?\)|[(]decisions\b|product[ ]decisions|local[- ]contract|platform[- ]notes|service[-]spec/i;
    const cited: string[] = [];
    for (const file of trackedFiles()) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (citation.test(line)) cited.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(cited).toEqual([]);
  });

  it('finds broken links and references when there are some', () => {
    expect(exists('docs/api.md', 'operations.md')).toBe(true);
    expect(exists('docs/api.md', 'nothing-here.md')).toBe(false);
    expect(anchorsOf('README.md')).toContain('local-stack-npm-start');
    expect(anchorsOf('README.md')).toContain('send-your-first-email');
  });
});
