/**
 * `npm run test:durations`: runs the whole suite and writes each test file's
 * duration to test/support/durations.json, the order
 * test/support/sequencer.ts runs the files in (longest first).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const report = JSON.parse(readFileSync(resolve(root, process.argv[2] ?? '.data/vitest-report.json'), 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(resolve(root, 'test/support/durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/support/durations.json: ${Object.keys(durations).length} files`);
