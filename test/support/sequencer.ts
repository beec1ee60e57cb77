/**
 * Runs the longest test files of each project first, so that a run ends on
 * short files filling every worker rather than on one long file alone.
 * Vitest's own order comes from its cache of the last run, which a clean
 * clone (CI) does not have: there it runs the larger files first, and the
 * same clone's run took 383 s without its cache, 335 s with it. The
 * durations are a full run's, kept in test/support/durations.json; a file
 * not listed there counts as a middling one. `npm run test:durations` writes
 * them again from a run of the whole suite.
 *
 * One project's files still run after the other's, as in vitest's own
 * order: interleaved, a worker that shares its modules between files is
 * started again more often, and a run imported 251 s of modules instead of
 * 172 s (docs/performance.md).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS: Record<string, number> = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8'));
const UNLISTED_SECONDS = 5;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => DURATIONS[relative(this.ctx.config.root, file.moduleId)] ?? UNLISTED_SECONDS;
    return [...files].sort((a, b) => (a.project.name === b.project.name ? seconds(b) - seconds(a) : a.project.name < b.project.name ? -1 : 1));
  }
}
