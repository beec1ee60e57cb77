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

  it('lets npm start use an outside DynamoDB without java', async () => {
    expect((await run([], { PATH: '/nonexistent', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).code).toBe(0);
    expect((await run(['--always'], { PATH: process.env.PATH })).code).toBe(0);
  });
});
