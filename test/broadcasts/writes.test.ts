/**
 * What a broadcast writes to DynamoDB per message (issue 17: at most 2.5
 * write units, events included), metered by the benchmark's meter on the
 * handlers' own client against DynamoDB Local, everything the send and its
 * steps write counted: units of the table's own items, as the issue counts
 * them (docs/broadcasts.md, "Costs").
 */
import { describe, expect, it } from 'vitest';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue } from './support.ts';

const meter = meterDynamoDb();

describe('broadcast writes', { timeout: 90_000 }, () => {
  it('costs at most 2.5 write units of table items per message, its record and email.sent event included', async () => {
    const sender = await createSender();
    const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Metered' } })).body.data.id;
    // Two whole batches, so the per-batch writes weigh as they do in a large broadcast.
    const contacts = Array.from({ length: 100 }, (_, index) => ({ email: uniqueAddress(`m${index}`), firstName: `Name${index}` }));
    expect((await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId, contacts } })).status).toBe(200);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p>' });

    meter.reset();
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    await drainBroadcastQueue();
    const usage = meter.usage();

    expect((await broadcastWhen(sender.key, broadcast.id, ['sent'])).counts).toMatchObject({ sent: 100, failed: 0 });
    expect(await storedEmails(sender.domain)).toHaveLength(100);
    expect(usage.tableWriteUnits / 100).toBeLessThanOrEqual(2.5);
    // One BatchWriteItem per message (its record and event), not a claim and a settle.
    expect(usage.operations.filter((operation) => operation === 'BatchWriteItem')).toHaveLength(100);
  });
});
