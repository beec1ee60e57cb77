/**
 * Independent-regions mode (`postlane:independentRegions`, REGION_MODE=independent):
 * one unreplicated table per region, each account's data in its home region
 * only (EU data residency). Its keys are unknown to the other region.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('independent', 'independent'));

const { call, EU, inRegion, itemsOf, startRegions, TABLES, US } = await import('./two-regions.ts');
const { createAccount, moveAccount } = await import('#shared/accounts/service.ts');
const { createApiKey } = await import('#shared/accounts/api-keys.ts');

beforeAll(async () => {
  await startRegions({ replicated: false });
});

/** An EU account with a key, made as an operator would: against the EU table. */
async function euAccount() {
  return inRegion(EU, async () => {
    const { accountId } = await createAccount({ plan: 'business', region: EU });
    const { key } = await createApiKey({ accountId, env: 'live', permission: 'full' });
    return { accountId, key };
  });
}

describe('independent regions', () => {
  it('answers 401 to the key of an EU account through the US region, and serves it in the EU', async () => {
    const { key } = await euAccount();

    const [us, eu] = [await call(US, 'audiences/list', { key }), await call(EU, 'audiences/list', { key })];

    expect(us.status).toBe(401);
    expect(us.body).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    expect(eu.status).toBe(200);
  });

  it("keeps the EU account's data in the EU table only", async () => {
    const { accountId, key } = await euAccount();

    const audience = await call(EU, 'audiences/create', { key, body: { name: 'EU only' } });
    await call(EU, 'contacts/create', { key, body: { email: 'ana@example.eu', audienceId: audience.body.data.id } });

    expect((await itemsOf(TABLES()[EU]!, accountId)).size).toBeGreaterThan(3);
    expect((await itemsOf(TABLES()[US]!, accountId)).size).toBe(0);
  });

  it("refuses to create an account homed in another region's table, and to move one", async () => {
    const { accountId } = await euAccount();

    await expect(inRegion(US, () => createAccount({ plan: 'free', region: EU }))).rejects.toThrow(/AWS_REGION=eu-west-1/);
    await expect(inRegion(EU, () => moveAccount(accountId, US))).rejects.toThrow(/independent-regions mode/);
  });
});
