import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** A checkout of its own with a copy of bin/ensure-deps.mjs and an `npm` first on PATH that records its arguments instead of installing. */
function checkout(options: { lockfile: boolean; installed?: string[]; npmExit?: number }): { dir: string; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'ensure-deps-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync('bin/ensure-deps.mjs', join(dir, 'bin/ensure-deps.mjs'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { valibot: '1.5.0' }, devDependencies: { tsx: '4.23.15' } }));
  if (options.lockfile) writeFileSync(join(dir, 'package-lock.json'), '{}');
  for (const name of options.installed ?? []) {
    mkdirSync(join(dir, 'node_modules', name), { recursive: true });
    writeFileSync(join(dir, 'node_modules', name === '.' ? '.package-lock.json' : `${name}/package.json`), '{}');
  }
  const fakeBin = join(dir, 'fake-bin');
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, 'npm'), `#!/bin/sh\necho "$@" >> "${join(dir, 'npm-calls')}"\nexit ${options.npmExit ?? 0}\n`, { mode: 0o755 });
  const calls = () => {
    try {
      return readFileSync(join(dir, 'npm-calls'), 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  };
  return { dir, calls };
}

function run(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: `${join(dir, 'fake-bin')}:${process.env.PATH}` };
    execFile(process.execPath, ['bin/ensure-deps.mjs'], { cwd: dir, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('npm start and npm test on a fresh clone', () => {
  it('runs npm ci, saying so in one line, when node_modules is missing', async () => {
    const { dir, calls } = checkout({ lockfile: true });
    const { code, stdout } = await run(dir);
    expect(code).toBe(0);
    expect(calls()).toEqual(['ci']);
    expect(stdout.trim().split('\n')).toEqual([expect.stringMatching(/^node_modules is missing or incomplete .*: running npm ci$/)]);
  });

  it('runs npm install when there is no lockfile', async () => {
    const { dir, calls } = checkout({ lockfile: false });
    expect((await run(dir)).code).toBe(0);
    expect(calls()).toEqual(['install']);
  });

  it('installs when an install never finished (no node_modules/.package-lock.json) or a declared package is absent', async () => {
    const unfinished = checkout({ lockfile: true, installed: ['valibot', 'tsx'] });
    expect((await run(unfinished.dir)).stdout).toContain('node_modules/.package-lock.json');
    expect(unfinished.calls()).toEqual(['ci']);

    const incomplete = checkout({ lockfile: true, installed: ['.', 'valibot'] });
    expect((await run(incomplete.dir)).stdout).toContain('node_modules/tsx');
    expect(incomplete.calls()).toEqual(['ci']);
  });

  it('does nothing and prints nothing when every declared package is installed', async () => {
    const { dir, calls } = checkout({ lockfile: true, installed: ['.', 'valibot', 'tsx'] });
    expect(await run(dir)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(calls()).toEqual([]);
  });

  it("stops npm start with npm's exit code when the install fails", async () => {
    const { dir, calls } = checkout({ lockfile: true, npmExit: 3 });
    expect((await run(dir)).code).toBe(3);
    expect(calls()).toEqual(['ci']);
  });

  it('is the first step of both scripts, before anything that needs a dependency', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toMatch(/^node bin\/ensure-deps\.mjs && node bin\/require-java\.mjs && /);
    expect(scripts.test).toMatch(/^node bin\/ensure-deps\.mjs && node bin\/require-java\.mjs --always && /);
  });
});
