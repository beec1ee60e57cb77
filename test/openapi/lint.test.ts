/**
 * docs/openapi.json passes the recommended rules of the two linters API
 * tooling commonly runs, with the repository's configuration (redocly.yaml
 * and its ignore file, .spectral.yaml): no error and no warning.
 * Each runs once, from node_modules, offline.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCUMENT = 'docs/openapi.json';

/** Runs a linter's binary; a linter exits non-zero when it finds something, so its stdout is the answer either way. */
async function run(binary: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    return (await promisify(execFile)(`node_modules/.bin/${binary}`, args, { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (!stdout) throw new Error(`${binary} failed: ${stderr}`);
    return stdout;
  }
}

describe('the OpenAPI document under the linters', () => {
  it("passes Redocly CLI's recommended ruleset with no warning", async () => {
    const stdout = await run('redocly', ['lint', DOCUMENT, '--config', 'redocly.yaml', '--format', 'json', '--max-problems', '1000'], {
      // No usage report and no check for a newer version: the test runs offline.
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    });
    const { problems } = JSON.parse(stdout) as { problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };

    expect(problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  }, 60_000);

  it("passes Spectral's spectral:oas ruleset with no warning", async () => {
    const stdout = await run('spectral', ['lint', DOCUMENT, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet']);
    const findings = JSON.parse(stdout || '[]') as { code: string; message: string; path: string[] }[];

    expect(findings.map((finding) => `${finding.code} at ${finding.path.join('.')}: ${finding.message}`)).toEqual([]);
  }, 60_000);
});
