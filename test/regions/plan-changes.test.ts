/**
 * A plan change (`admin account update`, issue 27) holds at once in every
 * region: the keys' copies are rewritten in the account's home replica, where
 * every key check is made, whichever region the operator or the request is in.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('home', 'plan-changes'));

const { arrange, call, EU, inRegion, startRegions, US } = await import('./two-regions.ts');
const { updateAccount } = await import('#shared/accounts/service.ts');
const { uniqueAddress } = await import('../sending/support.ts');

const replication = (await startRegions({ replicated: true }))!;
afterAll(() => replication.stop());

describe('plan changes across regions', () => {
  it('raise the quota for requests in both regions at once, before replication brings the change', async () => {
    // EU-homed, a quota of 8 with 2 emails sent.
    const setup = await arrange(replication);
    const send = (region: string, recipients: string[]) =>
      call(region, 'email/send', { key: setup.key, body: { from: setup.from, recipients, subject: 'Hi', content: '<p>Hi</p>' } });
    expect(
      (
        await send(
          US,
          Array.from({ length: 6 }, () => uniqueAddress()),
        )
      ).status,
    ).toBe(200);
    expect((await send(EU, [uniqueAddress()])).body).toMatchObject({ error: 'QUOTA_EXCEEDED' });
    replication.hold();
    try {
      // The operator works from the other region than the account's home.
      await inRegion(US, () => updateAccount(setup.accountId, { quota: 10 }));

      const [inUs, inEu] = [await send(US, [uniqueAddress()]), await send(EU, [uniqueAddress()])];

      expect([inUs.status, inEu.status]).toEqual([200, 200]);
      expect(inEu.body.emailsRemaining).toBe(0);
    } finally {
      replication.resume();
    }
  });
});
