/**
 * How code reaches the AWS SDK decides what esbuild can leave out: a dynamic
 * `import()` of a client package keeps its whole namespace, every operation's
 * schema with it (the SES client went from 55 to 111 KB in the domain
 * functions that way). Only named static imports, then.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('SDK imports in bundled code', () => {
  it('are static and by name, never `import()` or `import *` of a client package', () => {
    const offending = [...sourceFiles('functions'), ...sourceFiles('shared')]
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, index) => ({ file, line: index + 1, text: line.trim() })),
      )
      .filter(({ text }) => /import\(\s*['"]@aws-sdk\/client-|import \* as \w+ from ['"]@aws-sdk\/client-/.test(text))
      .map(({ file, line, text }) => `${file}:${line}: ${text}`);
    expect(offending).toEqual([]);
  });
});
