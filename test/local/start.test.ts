import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort, isPortFree } from '#dev/local/ports.ts';
import { listenersOf } from './listening.ts';
import { eventually } from '../support/eventually.ts';
import { ROOT, startStack as start, stopStack as stop, untilReady } from './npm-start.ts';

const KEYS_FILE = `${ROOT}.data/local-keys.json`;

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

describe('npm start', () => {
  it('starts DynamoDB Local, the SES emulator and the API, seeds an account, and stops cleanly on SIGTERM', async () => {
    const [api, dynamodb, ses] = [await findFreePort(), await findFreePort(), await findFreePort()];
    const keysBefore = existsSync(KEYS_FILE) ? readFileSync(KEYS_FILE, 'utf8') : undefined;

    const started = start({ LOCAL_IN_MEMORY: '1', PORT: String(api), DYNAMODB_PORT: String(dynamodb), SES_PORT: String(ses) });
    const output = await untilReady(started);

    expect(output).toMatch(new RegExp(`^DynamoDB Local +http://127\\.0\\.0\\.1:${dynamodb}\\b`, 'm'));
    expect(output).toMatch(new RegExp(`^SES emulator +http://127\\.0\\.0\\.1:${ses}\\b`, 'm'));
    expect(output).toMatch(new RegExp(`^HTTP API +http://127\\.0\\.0\\.1:${api}$`, 'm'));
    expect(output).toMatch(new RegExp(`^hosted forms +http://127\\.0\\.0\\.1:${api}/f/<slug>$`, 'm'));
    const liveKey = /svc_live_[0-9A-Za-z]+/.exec(output)?.[0];
    expect(/svc_test_[0-9A-Za-z]+/.test(output)).toBe(true);
    expect(liveKey).toBeDefined();

    const base = `http://127.0.0.1:${api}`;
    expect(await json(`${base}/api/nothing-here`)).toEqual({ status: 404, body: { success: false, error: 'NOT_FOUND', message: expect.any(String) } });
    expect(await json(`${base}/api/contacts`)).toEqual({ status: 401, body: { success: false, error: 'UNAUTHORIZED', message: expect.any(String) } });
    expect((await json(`${base}/api/audiences`, { headers: { 'x-api-key': liveKey! } })).status).toBe(200);
    expect(await json(`http://127.0.0.1:${ses}/store`)).toMatchObject({ status: 200, body: { emails: [] } });
    // The attachment upload path, through the local S3 npm start runs on a port of its own.
    expect(output).toMatch(/^local S3 +http:\/\/127\.0\.0\.1:\d+ +\(attachment uploads in memory/m);
    const headers = { 'x-api-key': liveKey!, 'content-type': 'application/json' };
    const upload = await json(`${base}/api/attachments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ filename: 'a.txt', contentType: 'text/plain', size: 5 }),
    });
    const { id, uploadUrl } = (upload.body as { data: { id: string; uploadUrl: string } }).data;
    expect((await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' })).status).toBe(200);
    const email = { from: 'news@example.com', recipients: ['ann@example.org'], subject: 'File', content: '<p>File</p>', attachments: [{ id }] };
    expect((await json(`${base}/api/email/send`, { method: 'POST', headers, body: JSON.stringify(email) })).status).toBe(200);
    expect(await json(`http://127.0.0.1:${ses}/store`)).toMatchObject({
      body: { emails: [{ attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64') }] }] },
    });
    // The local admin signs in to the dashboard with a code the SES emulator shows (the retry queue's worker mails it).
    // Once, on its line among the parts (one line per part with its address: README.md, "Local stack").
    expect(output).toMatch(
      new RegExp(
        `^dashboard +http://127\\.0\\.0\\.1:${api}/app/ +\\(sign in as admin@example\\.com, an admin; the code arrives in the SES emulator, http://127\\.0\\.0\\.1:${ses}/\\)$`,
        'm',
      ),
    );
    expect(output.split(`http://127.0.0.1:${api}/app/`)).toHaveLength(2);
    const asked = await json(`${base}/api/session/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com' }),
    });
    expect(asked.status).toBe(200);
    const mailed = await eventually(
      async () => ((await json(`http://127.0.0.1:${ses}/store`)).body as { emails: { destination: { to: string[] } }[] }).emails,
      (emails) => emails.some((email) => email.destination.to.includes('admin@example.com')),
    );
    expect(mailed.filter((email) => email.destination.to.includes('admin@example.com'))).toHaveLength(1);
    // An in-memory stack's keys die with it: they must not replace the persistent stack's.
    expect(existsSync(KEYS_FILE) ? readFileSync(KEYS_FILE, 'utf8') : undefined).toBe(keysBefore);

    // Every part, the JVM of DynamoDB Local included, on loopback only (README.md, "Local stack").
    const listeners = listenersOf(started.child.pid!);
    expect(listeners.map(({ port }) => port)).toEqual(expect.arrayContaining([api, dynamodb, ses]));
    for (const listener of listeners) expect(['127.0.0.1', '::ffff:127.0.0.1'], JSON.stringify(listener)).toContain(listener.address);

    expect(await stop(started)).toBe(0);
    expect([await isPortFree(api), await isPortFree(dynamodb), await isPortFree(ses)]).toEqual([true, true, true]);
  }, 90_000);

  it('uses DYNAMODB_ENDPOINT and SES_ENDPOINT instead of starting its own, and seeds only an empty table', async () => {
    const env = {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      SES_ENDPOINT: process.env.SES_ENDPOINT!,
      TABLE_NAME: `start-test-${Date.now()}`,
      PORT: String(await findFreePort()),
    };

    const first = start(env);
    const firstOutput = await untilReady(first);
    expect(await stop(first)).toBe(0);
    const second = start(env);
    const secondOutput = await untilReady(second);
    expect(await stop(second)).toBe(0);

    expect(firstOutput).toContain(`DynamoDB        ${env.DYNAMODB_ENDPOINT}  (DYNAMODB_ENDPOINT; not started here)`);
    expect(firstOutput).toContain(`SES             ${env.SES_ENDPOINT}  (SES_ENDPOINT; not started here)`);
    expect(firstOutput).toMatch(/live key +svc_live_/);
    expect(secondOutput).not.toMatch(/svc_live_/);
    expect(secondOutput).toMatch(/key create --account/);
  }, 90_000);

  it.each([
    ['TABLE_NAME', 'x'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['CORS_ALLOWED_ORIGINS', 'example.com'],
    ['LOCAL_IN_MEMORY', 'yes'],
    ['PORT', 'http'],
  ])('stops before anything starts, in one line naming %s, when its value is bad', async (variable, value) => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'postlane-config-')), 'data');
    const ports = { PORT: String(await findFreePort()), DYNAMODB_PORT: String(await findFreePort()), SES_PORT: String(await findFreePort()) };

    const started = start({ ...ports, LOCAL_DATA_DIR: dataDir, [variable]: value });
    const { code, stderr } = await started.exit;

    expect(code).toBe(1);
    expect(started.output()).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(variable);
    // DynamoDB Local would have made its data folder there.
    expect(existsSync(dataDir)).toBe(false);
  });

  describe('with a port taken', () => {
    const blockers: Server[] = [];

    afterEach(async () => {
      await Promise.all(blockers.splice(0).map((blocker) => new Promise((resolve) => blocker.close(resolve))));
    });

    /** Listens on `port` as another program would; false when something already does. */
    async function block(port: number): Promise<boolean> {
      const blocker = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        blocker.once('error', () => resolve(false));
        blocker.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (bound) blockers.push(blocker);
      return bound;
    }

    it.each(['PORT', 'DYNAMODB_PORT', 'SES_PORT'])('fails with one line naming the port and %s', async (variable) => {
      const taken = await findFreePort();
      await block(taken);
      // The obvious suggestion, the next port, is taken too.
      await block(taken + 1);
      const ports: Record<string, string> = {
        PORT: String(await findFreePort()),
        DYNAMODB_PORT: String(await findFreePort()),
        SES_PORT: String(await findFreePort()),
      };

      const started = start({ ...ports, [variable]: String(taken), LOCAL_IN_MEMORY: '1' });
      const { code, stderr } = await started.exit;

      expect(code).toBe(1);
      expect(started.output()).not.toMatch(/^ready$/m);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`Port ${taken} is already in use`);
      expect(stderr).toContain(`set ${variable} to a free port`);
      const suggested = Number(new RegExp(`${variable}=(\\d+) npm start`).exec(stderr)?.[1]);
      expect(suggested).not.toBe(taken + 1);
      expect(
        Object.entries(ports)
          .filter(([name]) => name !== variable)
          .map(([, port]) => Number(port)),
      ).not.toContain(suggested);
      expect(await isPortFree(suggested)).toBe(true);
    });
  });
});
