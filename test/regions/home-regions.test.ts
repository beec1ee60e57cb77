/**
 * Issue 16: one account's traffic through two regions at once, over two
 * replicas kept in step as a global table does. With home regions every
 * invariant holds once replication settles; test/regions/without-home-regions.test.ts
 * runs the same traffic without them and shows it does not.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('home', 'home-regions'));

const { arrange, call, concurrentTraffic, EU, inRegion, itemsOf, startRegions, TABLES, US, violations } = await import('./two-regions.ts');
const { restrictKey } = await import('#shared/domain/api-keys.ts');
const { showAccount } = await import('#shared/domain/accounts.ts');

const replication = (await startRegions({ replicated: true }))!;
afterAll(() => replication.stop());

describe('home regions (global table, two regions)', () => {
  it('keeps every invariant exact under concurrent traffic for one account through both regions', async () => {
    const setup = await arrange(replication);

    await concurrentTraffic(setup);
    await replication.settled();

    expect(await violations(setup)).toEqual([]);
  });

  it('refuses a revoked or disabled key at once in the other region, before replication brings the change', async () => {
    const setup = await arrange(replication);
    const other = await arrange(replication);
    replication.hold();
    try {
      await inRegion(US, () => restrictKey(setup.accountId, setup.keyId, 'revoke'));
      await inRegion(EU, () => restrictKey(other.accountId, other.keyId, 'disable'));

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
    const inReplica = async (region: string, id: string) => [...(await itemsOf(TABLES()[region]!, setup.accountId)).keys()].some((key) => key.endsWith(` ${id}`));
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
});
