/**
 * Deleting a domain (issue 27): the account can no longer send from it, and
 * the SES identity, shared by every account that added the name, is deleted
 * with the last of them, never while one still has it, and never when
 * Postlane did not create it.
 */
import { describe, expect, it } from 'vitest';
import { countDomains, getDomain as readDomain } from '#shared/domains/store.ts';
import { identityHolds } from '#shared/domains/ses-identity-store.ts';
import { localRegion } from '#shared/platform/dynamodb/regions.ts';
import { createDomain, deleteDomain, type Domain } from '#shared/domains/service.ts';
import { sesVerifier } from '#shared/domains/verification.ts';
import { createTestAccount, type TestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createSender, sendPlain, uniqueAddress } from '../sending/support.ts';
import { sesIdentities, uniqueDomain } from './support.ts';

const dkimTokensOf = (domain: Domain) => domain.records.filter((record) => record.purpose === 'dkim').map((record) => record.name.split('.')[0]);

describe('DELETE /api/domains/:id', () => {
  it('removes the domain: sends from it are refused, and it is gone from get, delete and the list', async () => {
    const sender = await createSender();
    const [{ id }] = (await request('GET', '/api/domains', { key: sender.key })).body.domains;

    const before = await sendPlain(sender, [uniqueAddress()]);
    const removed = await request('DELETE', `/api/domains/${id}`, { key: sender.key });
    const after = await sendPlain(sender, [uniqueAddress()]);
    const fetched = await request('GET', `/api/domains/${id}`, { key: sender.key });
    const again = await request('DELETE', `/api/domains/${id}`, { key: sender.key });
    const listed = await request('GET', '/api/domains', { key: sender.key });

    expect(before.status).toBe(200);
    expect(removed).toMatchObject({ status: 200, body: { success: true, message: 'Domain deleted' } });
    expect(after.status).toBe(403);
    expect(after.body).toMatchObject({ error: 'SENDER_NOT_VERIFIED', field: 'from' });
    for (const gone of [fetched, again])
      expect(gone).toMatchObject({ status: 404, body: { success: false, error: 'DOMAIN_NOT_FOUND', message: 'Domain not found' } });
    expect(listed.body).toMatchObject({ domains: [], pagination: { total: 0 } });
  });

  it('answers racing deletes of one domain with one 200, the others 404, and frees one place', async () => {
    const { accountId, key } = await createTestAccount();
    const { id } = (await request('POST', '/api/domains', { key, body: { domain: uniqueDomain() } })).body.data;

    const answers = await Promise.all(Array.from({ length: 4 }, () => request('DELETE', `/api/domains/${id}`, { key })));

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404]);
    expect(await countDomains(accountId)).toBe(0);
  });
});

describe('SES identities shared by accounts', () => {
  /** The account's own record of the domain, as the send path reads it. */
  const recordOf = (account: TestAccount, domain: string) => readDomain(account.accountId, domain);

  it('deletes the identity with the last account that has the domain, and creates it anew for the next', async () => {
    const [first, second, later] = await Promise.all([createTestAccount(), createTestAccount(), createTestAccount()]);
    const domain = uniqueDomain();
    const ses = sesIdentities();
    const verifier = sesVerifier(ses.client);
    const added = await createDomain(first.accountId, { domain }, new Date(), verifier);
    const shared = await createDomain(second.accountId, { domain }, new Date(), verifier);

    await deleteDomain(first.accountId, added.id, new Date(), verifier);
    const kept = ses.identities.get(domain);
    await deleteDomain(second.accountId, shared.id, new Date(), verifier);
    const deleted = ses.deleted();
    const anew = await createDomain(later.accountId, { domain }, new Date(), verifier);

    expect(dkimTokensOf(shared)).toEqual(dkimTokensOf(added));
    expect(kept).toEqual(dkimTokensOf(added));
    expect(deleted).toEqual([domain]);
    expect(ses.identities.get(domain)).toEqual(dkimTokensOf(anew));
    expect(dkimTokensOf(anew)).not.toEqual(dkimTokensOf(added));
  });

  it("never deletes an identity Postlane did not create (the operator's, or one from before holds were counted)", async () => {
    const [first, second] = await Promise.all([createTestAccount(), createTestAccount()]);
    const domain = uniqueDomain();
    const ses = sesIdentities({ existing: [domain] });
    const verifier = sesVerifier(ses.client);
    const added = await Promise.all([first, second].map((account) => createDomain(account.accountId, { domain }, new Date(), verifier)));

    await Promise.all([first, second].map((account, index) => deleteDomain(account.accountId, added[index]!.id, new Date(), verifier)));

    expect(ses.deleted()).toEqual([]);
    expect(ses.identities.has(domain)).toBe(true);
    expect(await identityHolds(domain, localRegion())).toBeUndefined();
  });

  it('deletes an identity only while no account has the domain, and every account that has it finds its identity in SES, under racing adds and deletes', async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createTestAccount()));
    const domain = uniqueDomain();
    const recordsNow = async () => (await Promise.all(accounts.map((account) => recordOf(account, domain)))).filter((record) => record !== undefined);
    const recordsAtDeletion: number[] = [];
    let deleteStarted = () => {};
    const ses = sesIdentities({
      deleteMs: 25,
      deleteStarted: () => deleteStarted(),
      beforeDelete: async () => void recordsAtDeletion.push((await recordsNow()).length),
    });
    const verifier = sesVerifier(ses.client);
    const add = (account: TestAccount) => createDomain(account.accountId, { domain }, new Date(), verifier);
    const remove = async (account: TestAccount) => deleteDomain(account.accountId, (await recordOf(account, domain))!.domainId, new Date(), verifier);
    await add(accounts[0]!);

    // Round after round the one account that has the domain deletes it while the next adds it: at once, once
    // SES has the deletion in hand, or after. The identity is taken over, or deleted and created anew.
    for (let round = 0; round < 12; round++) {
      const [leaving, joining] = [accounts[round % 4]!, accounts[(round + 1) % 4]!];
      const removed = remove(leaving);
      const whenSesDeletes = new Promise<void>((resolve) => (deleteStarted = resolve));
      const start = [Promise.resolve(), whenSesDeletes, removed][round % 3];
      await Promise.all([removed, start!.then(() => add(joining))]);
      const [holder, ...others] = await recordsNow();
      expect(others, `round ${round}`).toEqual([]);
      expect(holder?.dkimTokens, `round ${round}`).toEqual(ses.identities.get(domain));
    }
    await remove(accounts[12 % 4]!);

    expect(ses.identities.has(domain)).toBe(false);
    expect(recordsAtDeletion.length).toBeGreaterThan(4);
    expect(recordsAtDeletion).toEqual(recordsAtDeletion.map(() => 0));
    expect(await identityHolds(domain, localRegion())).toBeUndefined();
  });
});
