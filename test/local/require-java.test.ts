import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/require-java.mjs', ...args], { env }, (error, _stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

/** The check with `script` as the only `java` on PATH (before the system's tools). */
function runWithJava(script: string): Promise<{ code: number | null; stderr: string }> {
  const bin = mkdtempSync(join(tmpdir(), 'fake-java-'));
  writeFileSync(join(bin, 'java'), `#!/bin/sh\n${script}`, { mode: 0o755 });
  return run(['--always'], { PATH: `${bin}:/usr/bin:/bin` });
}

/** Refused: exit 1 and one line on stderr containing each of `parts`. */
function expectRefusal({ code, stderr }: { code: number | null; stderr: string }, ...parts: string[]): void {
  expect(code).toBe(1);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  for (const part of parts) expect(stderr).toContain(part);
}

describe('the java check before npm start and npm test', () => {
  it('stops with one line saying what to install when java is missing', async () => {
    expectRefusal(await run(['--always'], { PATH: '/nonexistent' }), 'apt-get install -y default-jre-headless');
  });

  it('stops with one line when java lacks the compiler module the loopback launcher runs on', async () => {
    expectRefusal(await runWithJava('echo java.base@17\n'), 'jdk.compiler');
  });

  it('refuses a java older than 17 in one line naming the version found and what to install', async () => {
    const refused = await runWithJava('echo java.base@11.0.20\necho jdk.compiler@11.0.20\n');

    expectRefusal(refused, 'java 11.0.20 found', 'Java 17+', 'apt-get install -y default-jre-headless');
  });

  it('names Java 8, which has no --list-modules, by the version java -version reports', async () => {
    const refused = await runWithJava(
      'if [ "$1" = -version ]; then echo \'openjdk version "1.8.0_392"\' >&2; exit 0; fi\necho "Unrecognized option: $1" >&2\nexit 1\n',
    );

    expectRefusal(refused, 'java 1.8.0_392 found');
  });

  it('lets npm start use an outside DynamoDB without java', async () => {
    expect((await run([], { PATH: '/nonexistent', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).code).toBe(0);
    expect((await run(['--always'], { PATH: process.env.PATH })).code).toBe(0);
  });
});
