import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/require-java.mjs', ...args], { env }, (error, _stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? 1 : 0, stderr });
    });
  });
}

describe('the java check before npm start and npm test', () => {
  it('stops with one line saying what to install when java is missing', async () => {
    const { code, stderr } = await run(['--always'], { PATH: '/nonexistent' });

    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('apt-get install -y default-jre-headless');
  });

  it('stops with one line when java lacks the compiler module the loopback launcher runs on', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'slim-java-'));
    writeFileSync(join(bin, 'java'), '#!/bin/sh\necho java.base@17\n', { mode: 0o755 });

    const { code, stderr } = await run(['--always'], { PATH: `${bin}:/usr/bin:/bin` });

    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('jdk.compiler');
  });

  it('refuses a java older than 17 in one line naming the version found and what to install', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'old-java-'));
    writeFileSync(join(bin, 'java'), '#!/bin/sh\necho java.base@11.0.20\necho jdk.compiler@11.0.20\n', { mode: 0o755 });

    const { code, stderr } = await run(['--always'], { PATH: `${bin}:/usr/bin:/bin` });

    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('java 11.0.20 found');
    expect(stderr).toContain('Java 17+');
    expect(stderr).toContain('apt-get install -y default-jre-headless');
  });

  it('names Java 8, which has no --list-modules, by the version java -version reports', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'java-8-'));
    const java8 = '#!/bin/sh\nif [ "$1" = -version ]; then echo \'openjdk version "1.8.0_392"\' >&2; exit 0; fi\necho "Unrecognized option: $1" >&2\nexit 1\n';
    writeFileSync(join(bin, 'java'), java8, { mode: 0o755 });

    const { code, stderr } = await run(['--always'], { PATH: `${bin}:/usr/bin:/bin` });

    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('java 1.8.0_392 found');
  });

  it('lets npm start use an outside DynamoDB without java', async () => {
    expect((await run([], { PATH: '/nonexistent', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).code).toBe(0);
    expect((await run(['--always'], { PATH: process.env.PATH })).code).toBe(0);
  });
});
