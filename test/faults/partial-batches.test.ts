/**
 * DynamoDB answers a batch in part under throttling (UnprocessedKeys,
 * UnprocessedItems). A partial answer must never become a wrong one: an
 * audience is still found with its counters, an
 * import and a send's records are written whole, suppressed addresses stay suppressed. When
 * DynamoDB keeps refusing past the retries the client gets the 500 envelope
 * (retry), never a 404 or a partial success; a throttled key check is a 500, never a 401.
 */
import { describe, expect, it } from 'vitest';

import { putSuppression } from '#shared/sending/suppression-store.ts';
import { createTestAccount } from '../support/accounts.ts';
import { buildHttpApiEvent, lambdaContext, loadHandler } from '#dev/local/http-event.ts';
import { request } from '../support/api.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { createSender, sendPlain, storedEmails, uniqueAddress } from '../sending/support.ts';
import { injectDynamoFault, INTERNAL_ERROR, type DynamoFault } from './support.ts';
import { accountWithAudience } from '../support/arrange.ts';
import { configureFile } from '../support/worker.ts';

// Each test here outlasts every retry of a batch: the retries are counted below, waiting the production backoff between them proves nothing more.
configureFile({ DYNAMODB_BACKOFF_MS: '1' });

const withAudience = (name = 'Partial') => accountWithAudience(name);

/**
 * GET /api/audiences straight into its handler, past the contract check of
 * `request` and `invoke`: a 500 given before the key is counted carries no
 * rate-limit headers, which docs/openapi.json promises on every keyed 500.
 */
async function listAudiencesUnchecked(key: string) {
  const target = { handler: 'audiences/list', routeKey: 'GET /api/audiences' };
  const event = buildHttpApiEvent({ method: 'GET', url: '/api/audiences', headers: { host: 'local.test', 'x-api-key': key } }, target);
  return (await loadHandler(target.handler))(event, lambdaContext(target.handler));
}

/** Every BatchGetItem of the account answered in part, retries included, for the rest of the test. */
function everyBatchGetInPart(accountId: string) {
  return injectDynamoFault({ command: 'BatchGetItemCommand', touching: accountId, fault: 'partial', times: Infinity });
}

describe('BatchGetItem answered in part', () => {
  it('an audience is still found, with its counters (not 404, not zero)', async () => {
    const { accountId, key, audienceId } = await withAudience();
    for (const email of ['ann@example.com', 'bob@example.com']) await request('POST', '/api/contacts', { key, body: { email, audienceId } });
    everyBatchGetInPart(accountId);

    const found = await request('GET', `/api/audiences/${audienceId}`, { key });
    const stats = await request('GET', `/api/audiences/${audienceId}/stats`, { key });

    expect(found).toMatchObject({ status: 200, body: { data: { id: audienceId, count: 2 } } });
    expect(stats.status).toBe(200);
    expect(JSON.stringify(stats.body)).toContain('"subscribed":2');
  });

  it("the audience list reads every audience's counters", async () => {
    const { accountId, key } = await createTestAccount();
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      const audienceId = (await request('POST', '/api/audiences', { key, body: { name } })).body.data.id as string;
      await request('POST', '/api/contacts', { key, body: { email: `${name.toLowerCase()}@example.com`, audienceId } });
      ids.push(audienceId);
    }
    everyBatchGetInPart(accountId);

    const listed = await request('GET', '/api/audiences', { key });

    expect(listed.status).toBe(200);
    const audiences = listed.body.audiences ?? listed.body.data;
    expect(audiences.map((audience: { id: string; count: number }) => [audience.id, audience.count]).sort()).toEqual(ids.map((id) => [id, 1]).sort());
  });

  it('a bulk import finds the existing contacts and writes everything, counters exact', async () => {
    const { accountId, key, audienceId } = await withAudience();
    const existing = Array.from({ length: 30 }, (_, index) => ({ email: `old${index}@example.com`, firstName: 'Old' }));
    expect((await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts: existing } })).body).toMatchObject({ imported: 30, failed: 0 });
    const fresh = Array.from({ length: 120 }, (_, index) => ({ email: `new${index}@example.com` }));
    everyBatchGetInPart(accountId);

    const imported = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: [...existing.map((contact) => ({ ...contact, firstName: 'Updated' })), ...fresh] },
    });

    expect(imported).toMatchObject({ status: 200, body: { imported: 150, failed: 0, skipped: 0 } });
    const recount = await recountAudience(accountId, audienceId);
    expect(recount.total).toBe(150);
    expect(await audienceCounters(accountId, audienceId)).toEqual(recount);
    const updated = await request('GET', `/api/contacts/email/old7@example.com?audienceId=${audienceId}`, { key });
    expect(updated.body.data).toMatchObject({ firstName: 'Updated' });
  });

  it('suppressed addresses stay suppressed', async () => {
    const sender = await createSender({ quota: 100 });
    const recipients = Array.from({ length: 6 }, () => uniqueAddress());
    const now = new Date();
    await putSuppression(sender.accountId, recipients[3]!, 'bounced', now);
    await putSuppression(sender.accountId, recipients[5]!, 'complained', now);
    everyBatchGetInPart(sender.accountId);

    const sent = await sendPlain(sender, recipients);

    expect(sent.status).toBe(200);
    expect(sent.body.failedEmails.map((failed: { recipient: string; error: string }) => [failed.recipient, failed.error])).toEqual([
      [recipients[3], 'RECIPIENT_SUPPRESSED'],
      [recipients[5], 'RECIPIENT_SUPPRESSED'],
    ]);
    expect(await storedEmails(sender.domain)).toHaveLength(4);
  });
});

describe('BatchWriteItem answered in part', () => {
  it('every email record of a send is stored', async () => {
    const sender = await createSender({ quota: 100 });
    const recipients = Array.from({ length: 5 }, () => uniqueAddress());
    const injected = injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'partial', times: Infinity });

    const sent = await sendPlain(sender, recipients);

    expect(sent.status).toBe(200);
    expect(injected.matched()).toBeGreaterThan(1);
    // A tracking id ends with its email id's unique part (svc_<ms>_<part>, eml_<part>).
    for (const { trackingId } of sent.body.successfulEmails as { trackingId: string }[]) {
      const emailId = `eml_${trackingId.split('_')[2]}`;
      expect((await request('GET', `/api/emails/${emailId}`, { key: sender.key })).status).toBe(200);
    }
  });
});

describe('DynamoDB keeps refusing past the retries', () => {
  // The key check is one conditional UpdateItem of the key item (shared/accounts/api-key-store.ts useApiKey).
  const refusals: DynamoFault[] = ['throttled', 'throttling'];

  it.each(refusals)('%s on the key check: 500, never 401', async (fault) => {
    const { accountId, key } = await createTestAccount();
    injectDynamoFault({ command: 'UpdateItemCommand', touching: accountId, fault, times: Infinity });

    const refused = await listAudiencesUnchecked(key);

    expect(refused.statusCode).toBe(500);
    expect(JSON.parse(refused.body!)).toEqual(INTERNAL_ERROR);
  });

  it('on the audience lookup: 500, never 404', async () => {
    const { accountId, key, audienceId } = await withAudience();
    injectDynamoFault({ command: 'BatchGetItemCommand', touching: accountId, fault: 'unprocessed', times: Infinity });

    const refused = await request('GET', `/api/audiences/${audienceId}`, { key });

    expect(refused).toMatchObject({ status: 500, body: INTERNAL_ERROR });
  });

  it('on the email records: 500, never a success that lost records', async () => {
    const sender = await createSender({ quota: 100 });
    injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'unprocessed', times: Infinity });

    const refused = await sendPlain(sender, [uniqueAddress(), uniqueAddress()]);

    expect(refused).toMatchObject({ status: 500, body: INTERNAL_ERROR });
  });
});

describe('transaction conflicts', () => {
  it('a few are retried, not reported', async () => {
    const { accountId, key, audienceId } = await withAudience();
    const injected = injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'conflict', times: 3 });

    const created = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });

    expect(created.status).toBe(201);
    expect(injected.matched()).toBe(4);
    expect((await recountAudience(accountId, audienceId)).total).toBe(1);
  });

  it('past the retries: 409 CONFLICT (retry the request), nothing written', async () => {
    const { accountId, key, audienceId } = await withAudience();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'conflict', times: Infinity });

    const refused = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });

    expect(refused).toMatchObject({ status: 409, body: { success: false, error: 'CONFLICT', message: 'The data changed concurrently; retry the request' } });
    const recount = await recountAudience(accountId, audienceId);
    expect(recount.total).toBe(0);
    expect(await audienceCounters(accountId, audienceId)).toEqual(recount);
  });
});
