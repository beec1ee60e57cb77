/**
 * The same traffic as test/regions/home-regions.test.ts with home regions
 * switched off (REGION_MODE=local: every call to the replica of the region
 * the request arrived in, as a global table allows): conditions are checked
 * in one replica only and last writer wins, so the invariants break. This
 * shows the danger issue 16 describes is real, not only claimed.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('local', 'local-writes'));

const { startRegions, TRAFFIC_TIMEOUT_MS, trafficViolations } = await import('./two-regions.ts');

const replication = (await startRegions({ replicated: true }))!;
afterAll(() => replication.stop());

describe('without home regions (every region writes its own replica)', () => {
  it(
    'breaks invariants under the same concurrent traffic: duplicates, drifting counters, quota and idempotency',
    async () => {
      const found = await trafficViolations(replication);

      expect(found).not.toEqual([]);
      // Each of these follows from conditions checked in one replica only, whatever the timing.
      expect(found.join('\n')).toMatch(/two contacts in one audience|emails went out on a monthly quota|one idempotency key sent/);
    },
    TRAFFIC_TIMEOUT_MS,
  );
});
