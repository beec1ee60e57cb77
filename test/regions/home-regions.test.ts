/**
 * Issue 16: one account's traffic through two regions at once, over two
 * replicas kept in step as a global table does. With home regions every
 * invariant holds once replication settles; test/regions/without-home-regions.test.ts
 * runs the same traffic without them and shows it does not.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('home', 'home-regions'));

const { arrange, call, EU, inRegion, itemsOf, startRegions, TABLES, TRAFFIC_TIMEOUT_MS, trafficViolations, US } = await import('./two-regions.ts');
const { createAccount, moveAccount, showAccount } = await import('#shared/accounts/service.ts');
const { db, tableName } = await import('#shared/platform/dynamodb/client.ts');
const { accountKey } = await import('#shared/platform/dynamodb/account-item.ts');
const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');

const replication = (await startRegions({ replicated: true }))!;
afterAll(() => replication.stop());

describe('home regions (global table, two regions)', () => {
  it(
    'keeps every invariant exact under concurrent traffic for one account through both regions',
    async () => {
      expect(await trafficViolations(replication)).toEqual([]);
    },
    TRAFFIC_TIMEOUT_MS,
  );

  it('refuses a revoked or disabled key at once in the other region, before replication brings the change', async () => {
    const setup = await arrange(replication);
    const other = await arrange(replication);
    replication.hold();
    try {
      // Over the API (the accounts are homed in the EU): a key revoking itself from the US, another disabling itself at home.
      expect((await call(US, 'api-keys/delete', { key: setup.key, pathParameters: { id: setup.keyId } })).status).toBe(200);
      expect((await call(EU, 'api-keys/update', { key: other.key, pathParameters: { id: other.keyId }, body: { disabled: true } })).status).toBe(200);

      expect((await call(US, 'audiences/list', { key: setup.key })).status).toBe(401);
      expect((await call(EU, 'audiences/list', { key: setup.key })).status).toBe(401);
      expect((await call(US, 'audiences/list', { key: other.key })).status).toBe(403);
      expect((await call(EU, 'audiences/list', { key: other.key })).status).toBe(403);
    } finally {
      replication.resume();
    }
  });

  it('writes for an account that arrive in the other region go to its home replica, and reach the other one by replication', async () => {
    const setup = await arrange(replication);
    const inReplica = async (region: string, id: string) =>
      [...(await itemsOf(TABLES()[region]!, setup.accountId)).keys()].some((key) => key.endsWith(` ${id}`));
    replication.hold();
    let id: string;
    try {
      const created = await call(US, 'audiences/create', { key: setup.key, body: { name: 'Made in the US' } });
      expect(created.status).toBe(201);
      id = created.body.data.id;
      expect({ home: await inReplica(EU, id), arrival: await inReplica(US, id) }).toEqual({ home: true, arrival: false });
      // Reads that guard writes (and this one, which also reads counters) are answered at home too.
      expect((await call(US, 'audiences/get', { key: setup.key, pathParameters: { id } })).status).toBe(200);
    } finally {
      replication.resume();
    }
    await replication.settled();
    expect(await inReplica(US, id)).toBe(true);
    expect((await inRegion(US, () => showAccount(setup.accountId)))?.region).toBe(EU);
  });

  it('moves the home (failover): later writes go to the new home; what the old home had not replicated arrives when it does', async () => {
    const setup = await arrange(replication);
    replication.hold(); // the EU is cut off: what it takes from now on stays there
    let stranded: string;
    try {
      stranded = (await call(EU, 'audiences/create', { key: setup.key, body: { name: 'Written in the EU just before' } })).body.data.id as string;

      expect(await inRegion(US, () => moveAccount(setup.accountId, US))).toEqual({ accountId: setup.accountId, region: US });

      const after = await call(EU, 'audiences/create', { key: setup.key, body: { name: 'Written after the move' } });
      const inReplica = async (region: string, id: string) =>
        [...(await itemsOf(TABLES()[region]!, setup.accountId)).keys()].some((key) => key.endsWith(` ${id}`));
      expect({ newHome: await inReplica(US, after.body.data.id), oldHome: await inReplica(EU, after.body.data.id) }).toEqual({ newHome: true, oldHome: false });
      // The documented trade-off: the new home lacks the old home's unreplicated writes...
      expect((await call(US, 'contacts/create', { key: setup.key, body: { email: 'ana@example.org', audienceId: stranded } })).status).toBe(404);
    } finally {
      replication.resume();
    }
    await replication.settled();
    // ...until replication brings them.
    expect((await call(US, 'contacts/create', { key: setup.key, body: { email: 'ana@example.org', audienceId: stranded } })).status).toBe(201);
  });

  it('refuses one write naming the items of two accounts: each account is written in its own home', async () => {
    const [first, second] = [await createAccount({ plan: 'free', region: EU }), await createAccount({ plan: 'free', region: US })];
    const exists = (accountId: string) => ({
      ConditionCheck: { TableName: tableName, Key: accountKey(accountId), ConditionExpression: 'attribute_exists(pk)' },
    });

    await expect(db.send(new TransactWriteCommand({ TransactItems: [exists(first.accountId), exists(second.accountId)] }))).rejects.toThrow(
      /names the items of 2 accounts/,
    );
  });
});
