/**
 * `npm start` keeps its data in DynamoDB Local's files: whatever was written
 * through the API is there again after a stop (SIGTERM) and a start.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '#dev/local/ports.ts';
import { startStack, stopStack, untilReady } from './npm-start.ts';

const dataDirs: string[] = [];

afterEach(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function stackEnv(dataDir: string): Promise<Record<string, string>> {
  return { LOCAL_DATA_DIR: dataDir, PORT: String(await findFreePort()), DYNAMODB_PORT: String(await findFreePort()), SES_PORT: String(await findFreePort()) };
}

function client(env: Record<string, string>, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`http://127.0.0.1:${env.PORT}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
}

describe('npm start across a restart', () => {
  it('keeps keys, audiences, contacts with their counters, templates, forms and email records', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'postlane-restart-'));
    dataDirs.push(dataDir);

    // The ports are chosen per start; only the data directory is shared.
    const firstEnv = await stackEnv(dataDir);
    const seeding = startStack(firstEnv);
    await untilReady(seeding);
    const {
      live: { key: liveKey },
    } = JSON.parse(readFileSync(join(dataDir, 'local-keys.json'), 'utf8')) as { live: { key: string } };
    const api = client(firstEnv, liveKey);

    const audience = (await api('POST', '/api/audiences', { name: 'Kept' })).body.data;
    const imported = await api('POST', '/api/contacts/bulk', {
      audienceId: audience.id,
      contacts: Array.from({ length: 30 }, (_, index) => ({ email: `kept${index}@example.com`, status: index % 3 ? 'subscribed' : 'pending' })),
    });
    const contact = (await api('POST', '/api/contacts', { email: 'ann@example.com', audienceId: audience.id, firstName: 'Ann' })).body.data;
    await api('PATCH', `/api/contacts/${contact.id}`, { status: 'unsubscribed' });
    const template = (await api('POST', '/api/templates', { name: 'Welcome', subject: 'Hi {{firstName}}' })).body.data;
    const form = (
      await api('POST', '/api/forms', { title: 'Kept form', published: true, fields: [{ id: 'email', type: 'email', label: 'Email', required: true }] })
    ).body.data;
    const sent = await api('POST', '/api/transactional/send', { from: 'news@example.com', to: 'someone@example.org', subject: 'Kept', content: '<p>Kept</p>' });
    const statsBefore = (await api('GET', `/api/audiences/${audience.id}/stats`)).body.data;
    expect([imported.status, sent.status]).toEqual([200, 200]);
    // Request logs go to the file the startup lines name, never between those lines (nor after them).
    expect(seeding.output()).toMatch(/^server log +\S*server\.log\b/m);
    expect(seeding.output()).not.toMatch(/^\{/m);
    const logged = readFileSync(join(dataDir, 'server.log'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((entry) => JSON.parse(entry) as { route?: string });
    expect(logged.map(({ route }) => route)).toEqual(expect.arrayContaining(['POST /api/audiences', 'POST /api/contacts/bulk']));
    expect(await stopStack(seeding)).toBe(0);

    // Ports found free may be taken by another test's server before npm start binds them: choose again, once.
    let restartedEnv = await stackEnv(dataDir);
    let restarted = startStack(restartedEnv);
    const output = await untilReady(restarted).catch(async (error: Error) => {
      if (!/EADDRINUSE/.test(error.message)) throw error;
      restartedEnv = await stackEnv(dataDir);
      restarted = startStack(restartedEnv);
      return untilReady(restarted);
    });
    const afterRestart = client(restartedEnv, liveKey);

    expect(output).not.toMatch(/svc_live_/);
    expect((await afterRestart('GET', `/api/audiences/${audience.id}`)).body.data).toMatchObject({ name: 'Kept', count: 31 });
    expect((await afterRestart('GET', `/api/audiences/${audience.id}/stats`)).body.data).toEqual(statsBefore);
    expect(statsBefore).toMatchObject({ total: 31, subscribed: 20, pending: 10, unsubscribed: 1 });
    expect((await afterRestart('GET', `/api/contacts/${contact.id}`)).body.data).toMatchObject({
      email: 'ann@example.com',
      firstName: 'Ann',
      status: 'unsubscribed',
    });
    expect((await afterRestart('GET', `/api/contacts?audienceId=${audience.id}&limit=100`)).body.contacts).toHaveLength(31);
    expect((await afterRestart('GET', `/api/templates/${template.id}`)).body.data).toMatchObject({ name: 'Welcome', subject: 'Hi {{firstName}}' });
    expect((await afterRestart('GET', `/api/forms/${form.id}`)).body.data).toMatchObject({ title: 'Kept form', published: true });
    expect((await afterRestart('GET', `/api/emails/${sent.body.emailId}`)).body.data).toMatchObject({ to: 'someone@example.org', subject: 'Kept' });
    expect(await stopStack(restarted)).toBe(0);
  }, 180_000);
});
