/**
 * Runs the longest test files first, so that a run ends on short files
 * filling every worker rather than on one long file alone. Vitest's own
 * order comes from its cache of the last run, which a clean clone (CI) does
 * not have: there it ran the files in alphabetical order. The durations are
 * a full run's, kept in test/support/durations.json; a file not listed there
 * counts as a middling one. `npm run test:durations` writes them again from
 * a run of the whole suite.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS: Record<string, number> = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8'));
const UNLISTED_SECONDS = 5;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => DURATIONS[relative(this.ctx.config.root, file.moduleId)] ?? UNLISTED_SECONDS;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
