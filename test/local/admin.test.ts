import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { getAccount } from '#shared/accounts/store.ts';
import { getDomain } from '#shared/domains/store.ts';
import { listEvents } from '#shared/events/service.ts';
import { findFreePort } from '#dev/local/ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** `npm run --silent admin -- ...args` as a subprocess against the test table (setup.ts put it in the environment). */
function admin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/admin.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr, json: code === 0 && stdout.startsWith('{') ? JSON.parse(stdout) : undefined });
    });
  });
}

/** Succeeded with one JSON object on one line and nothing on stderr. */
function expectJson(run: Run): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
}

/** Failed with one line on stderr and nothing on stdout. */
function expectOneLineError(run: Run, code: number, pattern: RegExp): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: '' });
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
}

describe('admin: accounts', () => {
  it('creates an account on the free plan with the plan quota by default', async () => {
    const created = await admin(['account', 'create']);
    expectJson(created);
    expect(created.json).toEqual({ accountId: expect.stringMatching(/^acc_[0-9A-Za-z]{20}$/) });

    const shown = await admin(['account', 'show', '--account', created.json.accountId]);

    expectJson(shown);
    expect(shown.json).toEqual({
      accountId: created.json.accountId,
      plan: 'free',
      region: 'us-east-1',
      quota: 3000,
      emailsSent: 0,
      emailsRemaining: 3000,
      period: new Date().toISOString().slice(0, 7),
    });
  });

  it('takes --plan, --quota and --name (also as --flag=value)', async () => {
    const created = await admin(['account', 'create', '--plan', 'growth', '--quota=12', '--name', 'Acme Ltd']);
    expectJson(created);

    const shown = await admin(['account', 'show', '--account', created.json.accountId]);

    expect(shown.json).toMatchObject({ plan: 'growth', quota: 12, emailsRemaining: 12 });
  });
});

describe('admin: home regions', () => {
  // Both regions' replicas are the one test table here: a global table whose replication is instant.
  const twoRegions = { DEPLOYMENT_REGIONS: 'us-east-1,eu-west-1' };

  it('creates an account in the region --region names (default the first), shows it, and moves it', async () => {
    const [plain, european] = await Promise.all([admin(['account', 'create'], twoRegions), admin(['account', 'create', '--region', 'eu-west-1'], twoRegions)]);
    expectJson(european);

    expect((await admin(['account', 'show', '--account', plain.json.accountId], twoRegions)).json).toMatchObject({ region: 'us-east-1' });
    expect((await admin(['account', 'show', '--account', european.json.accountId], twoRegions)).json).toMatchObject({ region: 'eu-west-1' });

    const moved = await admin(['account', 'move', '--account', european.json.accountId, '--region', 'us-east-1'], twoRegions);

    expectJson(moved);
    expect(moved.json).toEqual({ accountId: european.json.accountId, region: 'us-east-1' });
    expect((await admin(['account', 'show', '--account', european.json.accountId], twoRegions)).json).toMatchObject({ region: 'us-east-1' });
  });

  it('refuses a region the deployment does not have, and an unknown account, in one line', async () => {
    const { accountId } = (await admin(['account', 'create'], twoRegions)).json;

    const runs = await Promise.all([
      admin(['account', 'create', '--region', 'ap-south-1'], twoRegions),
      admin(['account', 'move', '--account', accountId, '--region', 'ap-south-1'], twoRegions),
      admin(['account', 'move', '--account', 'acc_missing', '--region', 'eu-west-1'], twoRegions),
      admin(['account', 'move', '--account', accountId], twoRegions),
    ]);

    expectOneLineError(runs[0]!, 1, /^Unknown region ap-south-1: the deployment's regions are us-east-1, eu-west-1\n$/);
    expectOneLineError(runs[1]!, 1, /^Unknown region ap-south-1/);
    expectOneLineError(runs[2]!, 1, /^Unknown account acc_missing\n$/);
    expectOneLineError(runs[3]!, 2, /account move needs --region/);
  });
});

describe('admin: send rates', () => {
  it("sets an account's send rate, changes it and removes it with --rate none, leaving account show as it was", async () => {
    const { accountId } = (await admin(['account', 'create'])).json;
    const before = (await admin(['account', 'show', '--account', accountId])).json;

    const set = await admin(['account', 'set-send-rate', '--account', accountId, '--rate', '12.5']);

    expectJson(set);
    expect(set.json).toEqual({ accountId, sendRate: 12.5 });
    expect((await getAccount(accountId))?.sendRate).toBe(12.5);
    expect((await admin(['account', 'set-send-rate', '--account', accountId, '--rate=3'])).json).toEqual({ accountId, sendRate: 3 });
    expect((await getAccount(accountId))?.sendRate).toBe(3);

    const cleared = await admin(['account', 'set-send-rate', '--account', accountId, '--rate', 'none']);

    expectJson(cleared);
    expect(cleared.json).toEqual({ accountId, sendRate: null });
    expect(await getAccount(accountId)).not.toHaveProperty('sendRate');
    expect((await admin(['account', 'show', '--account', accountId])).json).toEqual(before);
  });

  it('refuses a rate that is not a positive number (exit 2) and an unknown account (exit 1), in one line', async () => {
    const { accountId } = (await admin(['account', 'create'])).json;
    const rates = ['0', '-1', 'abc', '1e3', '0.0', '10/s', '.5', 'Infinity'];

    const runs = await Promise.all([
      ...rates.map((rate) => admin(['account', 'set-send-rate', '--account', accountId, '--rate', rate])),
      admin(['account', 'set-send-rate', '--account', accountId]),
      admin(['account', 'set-send-rate', '--account', 'acc_missing', '--rate', '5']),
    ]);

    for (const [index, rate] of rates.entries()) {
      expectOneLineError(
        runs[index]!,
        2,
        new RegExp(`^--rate must be a positive number of messages per second .*; got "${rate.replace(/[.*+/]/g, '\\$&')}"\n$`),
      );
    }
    expectOneLineError(runs[rates.length]!, 2, /account set-send-rate needs --rate/);
    expectOneLineError(runs[rates.length + 1]!, 1, /^Unknown account acc_missing\n$/);
    expect((await getAccount(accountId))?.sendRate).toBeUndefined();
  });
});

describe('admin: keys', () => {
  it('creates keys that the API accepts, lists them, and disables (403) or revokes (401) them', async () => {
    const { accountId } = (await admin(['account', 'create', '--plan', 'business'])).json;
    const [live, sending] = await Promise.all([
      admin(['key', 'create', '--account', accountId]),
      admin(['key', 'create', '--account', accountId, '--env', 'test', '--permission', 'sending', '--name', 'CI']),
    ]);
    expectJson(live);
    expect(live.json).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^svc_live_/) });
    expect(sending.json.key).toMatch(/^svc_test_/);
    expect((await request('GET', '/api/audiences', { key: live.json.key })).status).toBe(200);

    const listed = await admin(['key', 'list', '--account', accountId]);
    expectJson(listed);
    expect(listed.json.keys).toHaveLength(2);
    expect(listed.json.keys).toContainEqual({
      id: sending.json.id,
      name: 'CI',
      env: 'test',
      permission: 'sending',
      disabled: false,
      revoked: false,
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    expect(listed.json.keys.find((key: { id: string }) => key.id === live.json.id)).toMatchObject({
      env: 'live',
      permission: 'full',
      lastUsedAt: expect.any(String),
    });
    expect(JSON.stringify(listed.json)).not.toContain(live.json.key);

    const disabled = await admin(['key', 'disable', '--account', accountId, '--id', live.json.id]);
    expect(disabled.json).toEqual({ id: live.json.id, disabled: true });
    expect((await request('GET', '/api/audiences', { key: live.json.key })).status).toBe(403);

    const revoked = await admin(['key', 'revoke', '--account', accountId, '--id', live.json.id]);
    expect(revoked.json).toEqual({ id: live.json.id, revoked: true });
    expect((await request('GET', '/api/audiences', { key: live.json.key })).status).toBe(401);

    // The operator's changes are audited like a key's, naming the CLI as the actor.
    const { events } = await listEvents(accountId, { limit: 10 }, Date.now());
    const operator = { type: 'operator', id: 'admin-cli' };
    expect(events.map((event) => [event.type, event.data.apiKeyId, event.data.actor]).sort()).toEqual(
      [
        ['api_key.created', live.json.id, operator],
        ['api_key.created', sending.json.id, operator],
        ['api_key.revoked', live.json.id, operator],
        ['api_key.updated', live.json.id, operator],
      ].sort(),
    );
  });
});

describe('admin: domains', () => {
  it('marks a domain verified for the account, locally', async () => {
    const { accountId } = (await admin(['account', 'create'])).json;

    const verified = await admin(['domain', 'verify', '--account', accountId, '--domain', 'Mail.Example.COM']);

    expectJson(verified);
    expect(verified.json).toEqual({ domain: 'mail.example.com', verified: true });
    expect(await getDomain(accountId, 'mail.example.com')).toMatchObject({ verified: true, verifiedAt: expect.any(String) });
  });

  it('verifies a domain added over the API for that account only, keeping its id and its ownership record', async () => {
    const [owner, other] = await Promise.all([admin(['account', 'create', '--plan', 'business']), admin(['account', 'create', '--plan', 'business'])]);
    const [ownerKey, otherKey] = await Promise.all([owner, other].map((run) => admin(['key', 'create', '--account', run.json.accountId])));
    const domain = `admin-${owner.json.accountId.slice(-8).toLowerCase()}.example.com`;
    const [added, otherAdded] = await Promise.all([ownerKey, otherKey].map((run) => request('POST', '/api/domains', { key: run!.json.key, body: { domain } })));

    const verified = await admin(['domain', 'verify', '--account', owner.json.accountId, '--domain', domain]);
    const [shown, otherShown] = await Promise.all([
      request('GET', `/api/domains/${added!.body.data.id}`, { key: ownerKey!.json.key }),
      request('GET', `/api/domains/${otherAdded!.body.data.id}`, { key: otherKey!.json.key }),
    ]);

    expect(verified.json).toEqual({ domain, verified: true });
    expect(shown.body.data).toEqual({ ...added!.body.data, verified: true, status: 'verified', verifiedAt: expect.any(String) });
    expect(otherShown.body.data).toMatchObject({ verified: false, status: 'pending' });
  });
});

describe('admin: failures are one line on stderr and a non-zero exit', () => {
  it('refuses unknown accounts and keys', async () => {
    const { accountId } = (await admin(['account', 'create'])).json;
    const runs = await Promise.all([
      admin(['account', 'show', '--account', 'acc_missing']),
      admin(['key', 'create', '--account', 'acc_missing']),
      admin(['key', 'list', '--account', 'acc_missing']),
      admin(['domain', 'verify', '--account', 'acc_missing', '--domain', 'example.com']),
      admin(['key', 'revoke', '--account', accountId, '--id', 'key_missing']),
    ]);

    for (const run of runs.slice(0, 4)) expectOneLineError(run, 1, /^Unknown account acc_missing$/m);
    expectOneLineError(runs[4]!, 1, /^Unknown key key_missing/);
  });

  it('refuses malformed command lines with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^usage: /],
      [['account', 'delete'], /Unknown command "account delete"/],
      [['account', 'create', '--plan', 'gold'], /--plan must be one of free, pro, growth, business/],
      [['account', 'create', '--quota', 'lots'], /--quota must be a whole number/],
      [['account', 'create', '--colour', 'red'], /Unknown flag --colour/],
      [['account', 'create', 'extra'], /Unexpected argument "extra"/],
      [['key', 'create'], /key create needs --account/],
      [['key', 'create', '--account'], /--account needs a value/],
      [['key', 'create', '--account', 'acc_x', '--env', 'prod'], /--env must be one of live, test/],
      [['key', 'create', '--account', 'acc_x', '--permission', 'admin'], /--permission must be one of full, sending/],
      [['key', 'disable', '--account', 'acc_x'], /key disable needs --id/],
      [['domain', 'verify', '--account', 'acc_x', '--domain', 'not a domain'], /--domain must be a domain name/],
    ];

    const runs = await Promise.all(cases.map(([args]) => admin(args)));

    for (const [index, run] of runs.entries()) expectOneLineError(run, 2, cases[index]![1]);
  });

  it('says so when the local stack is not running', async () => {
    const run = await admin(['account', 'create'], { DYNAMODB_ENDPOINT: `http://127.0.0.1:${await findFreePort()}` });

    expectOneLineError(run, 1, /^Cannot reach DynamoDB at http:\/\/127\.0\.0\.1:\d+: start the local stack with npm start/);
  });
});

describe('admin: --help', () => {
  it('lists every command of the CLI with each of its flags, on stdout with exit 0', async () => {
    // The command table as the CLI itself reports it: its usage line names every command, and an unknown flag names each command's flags.
    const usage = await admin([]);
    const names = /<([^>]+)>/.exec(usage.stderr)![1]!.split(' | ');
    expect(names.length).toBeGreaterThan(5);

    const help = await admin(['--help']);

    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = help.stdout.split('\n');
    for (const name of names) {
      const [command, action] = name.split(' ') as [string, string];
      const flags = (await admin([command, action, '--zz', 'x'])).stderr.match(/--[a-z]+/g)!.filter((flag) => flag !== '--zz');
      const entry = lines.find((line) => line.trimStart().startsWith(`${name} `) || line.trim() === name);
      expect(entry, name).toBeDefined();
      for (const flag of flags) expect(entry, `${name} ${flag}`).toContain(flag);
    }
  });

  it('keeps an unknown command a one-line error with a non-zero exit', async () => {
    expectOneLineError(await admin(['nope', 'never']), 2, /Unknown command "nope never"/);
  });
});
