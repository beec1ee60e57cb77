/**
 * An account has at most 50 domains (issue 27): each is an SES identity in the
 * deployment's one AWS account, whose regional quota (about 10,000) one
 * account must not be able to use up for every other.
 */
import { describe, expect, it } from 'vitest';
import { getDomain, MAX_DOMAINS_PER_ACCOUNT } from '#shared/domains/store.ts';
import { createDomain } from '#shared/domains/service.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { localVerifier, sesVerifier } from '#shared/domains/verification.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { identityHolds } from '#shared/domains/ses-identity-store.ts';
import { localRegion } from '#shared/platform/dynamodb/regions.ts';
import { beforeNextIdentityCreation } from '../support/identity-race.ts';
import { sesIdentities, uniqueDomain } from './support.ts';

const LIMIT_REACHED = { success: false, error: 'DOMAIN_LIMIT_REACHED', message: 'An account has at most 50 domains; delete one to add another' };

/** Adds `count` domains to the account, one after another (arrangement: racing on its count would only retry). */
async function addDomains(accountId: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) await createDomain(accountId, { domain: uniqueDomain() }, new Date(), localVerifier);
}

const addOverApi = (key: string) => request('POST', '/api/domains', { key, body: { domain: uniqueDomain() } });

describe('domains per account', () => {
  it('refuses the 51st domain with 409 DOMAIN_LIMIT_REACHED, and takes one again once a domain is deleted', async () => {
    const { accountId, key } = await createTestAccount();
    const other = await createTestAccount();
    await addDomains(accountId, MAX_DOMAINS_PER_ACCOUNT - 1);

    const last = await addOverApi(key);
    const refused = await addOverApi(key);
    const elsewhere = await addOverApi(other.key);
    const removed = await request('DELETE', `/api/domains/${last.body.data.id}`, { key });
    const again = await addOverApi(key);
    const listed = await request('GET', '/api/domains', { key });

    expect([last.status, refused.status, elsewhere.status, removed.status, again.status]).toEqual([201, 409, 201, 200, 201]);
    expect(refused.body).toEqual(LIMIT_REACHED);
    expect(listed.body.pagination.total).toBe(MAX_DOMAINS_PER_ACCOUNT);
  });

  it('holds at the edge under concurrency: eight additions racing for the last place add exactly one', async () => {
    const { accountId, key } = await createTestAccount();
    // A key per request: requests of one key queue on its key item's write, which would space them out.
    const keys = await Promise.all(Array.from({ length: 8 }, async () => (await createApiKey({ accountId, env: 'live', permission: 'full' })).key));
    await addDomains(accountId, MAX_DOMAINS_PER_ACCOUNT - 1);

    const answers = await Promise.all(keys.map(addOverApi));
    const listed = await request('GET', '/api/domains', { key });

    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    for (const answer of answers.filter((refusal) => refusal.status === 409)) expect(answer.body).toEqual(LIMIT_REACHED);
    expect(listed.body.pagination.total).toBe(MAX_DOMAINS_PER_ACCOUNT);
  });

  it('refuses an addition whose place was taken while it created the identity, and hands that identity back', async () => {
    const { accountId, key } = await createTestAccount();
    await addDomains(accountId, MAX_DOMAINS_PER_ACCOUNT - 1);
    const domain = uniqueDomain();
    // The race the concurrency test above plays by chance, played every time: the request's checks pass, then the last place goes.
    beforeNextIdentityCreation(() => addDomains(accountId, 1));

    const refused = await request('POST', '/api/domains', { key, body: { domain } });
    const listed = await request('GET', '/api/domains', { key });

    expect([refused.status, refused.body]).toEqual([409, LIMIT_REACHED]);
    expect(listed.body.pagination.total).toBe(MAX_DOMAINS_PER_ACCOUNT);
    expect(await getDomain(accountId, domain)).toBeUndefined();
    // The identity it alone created is deleted again: no hold on it is left.
    expect(await identityHolds(domain, localRegion())).toBeUndefined();
  });

  it('leaves no SES identity behind for a refused addition, racing or not', async () => {
    const { accountId } = await createTestAccount();
    await addDomains(accountId, MAX_DOMAINS_PER_ACCOUNT - 1);
    const ses = sesIdentities();
    const verifier = sesVerifier(ses.client);

    const raced = await Promise.allSettled(Array.from({ length: 8 }, () => createDomain(accountId, { domain: uniqueDomain() }, new Date(), verifier)));
    const calls = ses.calls.length;
    const past = await createDomain(accountId, { domain: uniqueDomain() }, new Date(), verifier).catch((error: Error) => error);

    const added = raced.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refusals = raced.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(added).toHaveLength(1);
    expect(refusals.map((refusal) => refusal.code)).toEqual(Array(7).fill('DOMAIN_LIMIT_REACHED'));
    // The one identity left is the added domain's, with the DKIM tokens its records show.
    expect([...ses.identities.keys()]).toEqual([added[0]!.domain]);
    expect(added[0]!.records.filter((record) => record.purpose === 'dkim').map((record) => record.name.split('.')[0])).toEqual(
      ses.identities.get(added[0]!.domain),
    );
    // At the limit, an addition is refused before SES is asked anything.
    expect(past).toMatchObject({ code: 'DOMAIN_LIMIT_REACHED' });
    expect(ses.calls).toHaveLength(calls);
  });
});
