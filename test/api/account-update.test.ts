/**
 * Operators change an account's plan and quota (issue 27): `admin account
 * update`, after which every key of the account gets the new rate limits, OTP
 * window and quota from its next request.
 */
import { describe, expect, it } from 'vitest';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { dynamo } from '#shared/platform/dynamodb/client.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { updateAccount } from '#shared/accounts/service.ts';
import { admin } from '../support/admin-cli.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createSender, sendPlain, uniqueAddress, type Sender } from '../sending/support.ts';

/** The CLI's one JSON object, after checking it answered with nothing else. */
async function adminJson(args: string[]): Promise<Record<string, unknown>> {
  const run = await admin(args);
  expect({ code: run.code, stderr: run.stderr }, args.join(' ')).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

const otp = (sender: Sender, to: string) => request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to, code: '123456' } });

describe('admin account update', () => {
  it('raises the quota from the next request: a send refused with QUOTA_EXCEEDED goes through, with either key', async () => {
    const sender = await createSender({ quota: 2 });
    await sendPlain(sender, [uniqueAddress(), uniqueAddress()]);
    const refused = await sendPlain(sender, [uniqueAddress()]);

    const updated = await adminJson(['account', 'update', '--account', sender.accountId, '--quota', '5']);
    const shown = await adminJson(['account', 'show', '--account', sender.accountId]);
    const sent = await sendPlain(sender, [uniqueAddress()]);
    const tested = await request('POST', '/api/email/send', {
      key: sender.testKey,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' },
    });

    expect(refused.body).toMatchObject({ error: 'QUOTA_EXCEEDED' });
    expect(updated).toEqual({ ...shown, plan: 'business', quota: 5, emailsSent: 2, emailsRemaining: 3 });
    expect(sent.status).toBe(200);
    expect(sent.body.emailsRemaining).toBe(2);
    expect(tested.body.emailsRemaining).toBe(2);
  });

  it("gives the new plan's rate limit and OTP window from the next request, and --quota plan its quota", async () => {
    const sender = await createSender({ plan: 'free', quota: 4 });
    const to = uniqueAddress();
    const before = [await otp(sender, to), await otp(sender, to), await otp(sender, to), await otp(sender, to)];

    const updated = await adminJson(['account', 'update', '--account', sender.accountId, '--plan', 'pro', '--quota', 'plan']);
    const after = [await otp(sender, to), await otp(sender, to), await otp(sender, to)];
    const sent = await sendPlain(sender, [uniqueAddress(), uniqueAddress()]);
    // More at once than the free plan's 10 a second, which the pro plan's 50 admit.
    const burst = await Promise.all(Array.from({ length: 25 }, () => request('GET', '/api/audiences', { key: sender.key })));

    expect(before.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(before[3]!.body.message).toMatch(/^At most 3 OTP emails per recipient/);
    expect(before[3]!.headers.get('x-ratelimit-limit')).toBe('10');
    expect(updated).toMatchObject({ plan: 'pro', quota: 50_000, emailsSent: 3, emailsRemaining: 49_997 });
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(after[2]!.body.message).toMatch(/^At most 5 OTP emails per recipient/);
    expect(after[0]!.headers.get('x-ratelimit-limit')).toBe('50');
    expect(sent.status).toBe(200);
    expect(sent.body.emailsRemaining).toBe(49_993);
    expect(burst.map((answer) => answer.status)).toEqual(Array(25).fill(200));
  });

  it('reaches a key made while the plan changes, between its read of the account and its write', async () => {
    const { accountId } = await createTestAccount({ plan: 'free' });
    // The interleaving a real race gives now and then, every time: the change lands just before the new key is written.
    const changeMidway = 'planChangeMidway';
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes('"apiKey"')) {
          dynamo.middlewareStack.remove(changeMidway);
          await updateAccount(accountId, { plan: 'growth' });
        }
        return next(args);
      },
      { step: 'initialize', name: changeMidway },
    );

    const { key } = await createApiKey({ accountId, env: 'live', permission: 'full' }).finally(() => dynamo.middlewareStack.remove(changeMidway));
    const answer = await request('GET', '/api/audiences', { key });

    // The growth plan's 100 a second.
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it('leaves the key check as cheap as before: the same DynamoDB calls and capacity per request after a plan change', async () => {
    const { accountId, key } = await createTestAccount({ plan: 'free' });
    const { id } = (await request('POST', '/api/audiences', { key, body: { name: 'Floor' } })).body.data;
    const meter = meterDynamoDb();
    const metered = async () => {
      meter.reset();
      expect((await request('GET', `/api/audiences/${id}/stats`, { key })).status).toBe(200);
      return meter.usage();
    };

    const before = await metered();
    await updateAccount(accountId, { plan: 'pro', quota: 10 });
    const after = await metered();

    expect(after).toEqual(before);
    expect(after).toMatchObject({ roundTrips: 2, operations: ['UpdateItem', 'GetItem'], writeUnits: 1 });
  });

  it('refuses a command line without a change, or with a bad plan or quota (exit 2), and an unknown account (exit 1), in one line', async () => {
    const { accountId } = await createTestAccount({ plan: 'free' });

    const runs = await Promise.all([
      admin(['account', 'update', '--account', accountId]),
      admin(['account', 'update', '--account', accountId, '--plan', 'gold']),
      admin(['account', 'update', '--account', accountId, '--quota', 'lots']),
      admin(['account', 'update', '--account', accountId, '--quota', '-1']),
      admin(['account', 'update', '--account', 'acc_00000000000000000000', '--plan', 'pro']),
    ]);
    const shown = await adminJson(['account', 'show', '--account', accountId]);

    expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, lines: stderr.trimEnd().split('\n').length }))).toEqual([
      ...Array(4).fill({ code: 2, stdout: '', lines: 1 }),
      { code: 1, stdout: '', lines: 1 },
    ]);
    expect(runs.map((run) => run.stderr.trim())).toEqual([
      'account update needs --plan or --quota (or both)',
      '--plan must be one of free, pro, growth, business; got "gold"',
      `--quota must be a whole number of emails per month, or plan for the plan's own; got "lots"`,
      `--quota must be a whole number of emails per month, or plan for the plan's own; got "-1"`,
      'Unknown account acc_00000000000000000000',
    ]);
    expect(shown).toMatchObject({ plan: 'free', quota: 3000 });
  });
});
