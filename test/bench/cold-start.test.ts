/**
 * The cold-init pairs start as Lambda does: the bare start is the runtime
 * stand-in alone, and a bundle is imported by it after the built-ins the
 * runtime interface client loads itself, not by a bare `node`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { measureColdStarts, RUNTIME_STAND_IN } from '../../bench/cold-start.ts';

const dir = mkdtempSync(join(tmpdir(), 'postlane-cold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A handler module that records, when imported, which process imported it and which built-ins were loaded before it. */
function probe(): { file: string; seen: () => { main: string; builtins: string[] } } {
  const file = join(dir, 'probe.mjs');
  const record = join(dir, 'seen.json');
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';
const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
writeFileSync(${JSON.stringify(record)}, JSON.stringify({ main: process.argv[1], builtins }));
export const handler = async () => ({});
`,
  );
  return { file, seen: () => JSON.parse(readFileSync(record, 'utf8')) };
}

it("times each bundle as imported by the runtime stand-in, after the built-ins Lambda's runtime loads and none it does not", async () => {
  const { file, seen } = probe();

  const cold = await measureColdStarts([file], 1);

  expect(cold.figures.get(file)).toMatchObject({ ratio: expect.any(Number), initMs: expect.any(Number) });
  expect(cold.bareStartMs).toBeGreaterThan(0);
  const { main, builtins } = seen();
  expect(main).toBe(RUNTIME_STAND_IN);
  // aws-lambda-ric 4.0.2 index.mjs requires these at its top level, before it imports the handler.
  expect(builtins).toEqual(expect.arrayContaining(['module', 'path', 'fs', 'net', 'http', 'os', 'util', 'worker_threads']));
  // ...and none of these, which the SDK loads for itself: they stay the function's cost.
  for (const builtin of ['https', 'tls', 'crypto', 'zlib']) expect([builtin, builtins.includes(builtin)]).toEqual([builtin, false]);
});

it('fails loudly, naming the bundle, when the stand-in cannot import it', async () => {
  await expect(measureColdStarts([join(dir, 'missing.mjs')], 1)).rejects.toThrow(/missing\.mjs failed/);
});
