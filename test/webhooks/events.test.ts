/**
 * The event log against DynamoDB Local: one event per underlying change
 * however often it is reported, lists that cost their page whatever the
 * history, filters by type and date, one email's events oldest first,
 * signed cursors, and retention.
 */
import { describe, expect, it } from 'vitest';

const { listEmailEvents, listEvents, recordEvent, EVENT_TYPES } = await import('#shared/events/service.ts');
const { meterDynamoDb } = await import('../../bench/dynamo-meter.ts');
const { retentionExpiry } = await import('#shared/platform/retention.ts');
const { signingSecret } = await import('#shared/platform/signing/secret.ts');
const { createTestAccount } = await import('../support/accounts.ts');
const { refusal } = await import('./support.ts');

const DAY = 86_400_000;
/** One meter for the file: it is middleware on the shared client, added once. */
const meter = meterDynamoDb();

describe('recording an event', () => {
  it('stores {id, type, createdAt, data} with an evt_ id', async () => {
    const { accountId } = await createTestAccount();
    const now = Date.now();
    const { event, created } = await recordEvent(accountId, { type: 'contact.created', data: { contactId: 'con_1' }, sourceKey: 'contact:con_1:v1' }, now);
    expect(created).toBe(true);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{20}$/),
      type: 'contact.created',
      createdAt: new Date(now).toISOString(),
      data: { contactId: 'con_1' },
    });
    expect((await listEvents(accountId, { limit: 10 }, now)).events).toEqual([event]);
  });

  it('records a change reported twice once, and answers the first event to the repeat', async () => {
    const { accountId } = await createTestAccount();
    const input = {
      type: 'email.bounced' as const,
      data: { emailId: 'eml_x', bounce: { type: 'Permanent', subType: 'General' } },
      sourceKey: 'ses:0100abc:Bounce:a@example.com',
    };
    const first = await recordEvent(accountId, input, Date.now());
    const replay = await recordEvent(accountId, input, Date.now() + 60_000);
    expect(replay).toEqual({ event: first.event, created: false });
    expect((await listEvents(accountId, { limit: 10 }, Date.now())).events).toHaveLength(1);
  });

  it('records a change reported by ten writers at once exactly once', async () => {
    const { accountId } = await createTestAccount();
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        recordEvent(accountId, { type: 'email.delivered', data: { emailId: 'eml_y' }, sourceKey: 'ses:0100def:Delivery:b@example.com' }, now + index),
      ),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.event.id)).size).toBe(1);
    expect((await listEvents(accountId, { limit: 10 }, now + 100)).events).toHaveLength(1);
  });

  it('keeps events for RETENTION_DAYS (30 by default): the TTL is set and an expired event is no longer listed', async () => {
    const { accountId } = await createTestAccount();
    const now = Date.now();
    expect(retentionExpiry(now)).toBe(Math.floor((now + 30 * DAY) / 1000));
    await recordEvent(accountId, { type: 'contact.deleted', data: { contactId: 'con_old' }, sourceKey: 'contact:con_old:deleted' }, now - 31 * DAY);
    const recent = await recordEvent(
      accountId,
      { type: 'contact.deleted', data: { contactId: 'con_new' }, sourceKey: 'contact:con_new:deleted' },
      now - 29 * DAY,
    );
    expect((await listEvents(accountId, { limit: 10 }, now)).events).toEqual([recent.event]);
    // The same expired event, before it expired:
    expect((await listEvents(accountId, { limit: 10 }, now - 30 * DAY)).events).toHaveLength(2);
  });
});

describe('listing events', () => {
  /** 300 events, one a second, in three types; email.bounced ones belong to eml_a. */
  async function history(count = 300) {
    const { accountId } = await createTestAccount();
    const start = Date.now() - 2 * DAY;
    const types = ['email.sent', 'email.bounced', 'contact.updated'] as const;
    for (let batch = 0; batch < count; batch += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - batch) }, (_, offset) => {
          const index = batch + offset;
          const type = types[index % 3]!;
          return recordEvent(
            accountId,
            { type, data: { index, ...(type === 'email.bounced' ? { emailId: 'eml_a' } : {}) }, sourceKey: `change:${index}` },
            start + index * 1000,
          );
        }),
      );
    }
    return { accountId, start };
  }

  /** The few hundred events both list tests read (only read: they cannot disturb each other). */
  let large: ReturnType<typeof history> | undefined;
  function largeHistory() {
    large ??= history();
    return large;
  }

  it('pages through a few hundred events newest first, one query per page reading only the page', async () => {
    const { accountId } = await largeHistory();
    // The cursor key is read once per cold start, not per page.
    await signingSecret();
    const seen: number[] = [];
    const costs: { roundTrips: number; readUnits: number }[] = [];
    let cursor: string | undefined;
    do {
      meter.reset();
      const page = await listEvents(accountId, { limit: 40, ...(cursor ? { cursor } : {}) }, Date.now());
      costs.push(meter.usage());
      seen.push(...page.events.map((event) => event.data.index as number));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, index) => 299 - index));
    // 8 pages of 40 (the last one short, then none): the same cost on the first page as on the last.
    expect(costs.map((cost) => cost.roundTrips)).toEqual(costs.map(() => 1));
    const units = costs.map((cost) => cost.readUnits);
    expect(units[0]).toBeGreaterThan(0);
    expect(Math.max(...units)).toBeLessThanOrEqual(Math.max(units[0]!, 1) * 1.5);
  });

  it('filters by type with the same cost per page, whatever the other types', async () => {
    const { accountId } = await largeHistory();
    await signingSecret();
    meter.reset();
    const first = await listEvents(accountId, { type: 'email.bounced', limit: 25 }, Date.now());
    expect(meter.usage().roundTrips).toBe(1);
    expect(first.events).toHaveLength(25);
    expect(first.events.every((event) => event.type === 'email.bounced')).toBe(true);
    const second = await listEvents(accountId, { type: 'email.bounced', limit: 100, cursor: first.nextCursor! }, Date.now());
    expect([...first.events, ...second.events].map((event) => event.data.index)).toEqual(Array.from({ length: 100 }, (_, index) => 298 - index * 3));
    expect(second.nextCursor).toBeNull();
  });

  it('filters by date, both ends inclusive', async () => {
    const { accountId, start } = await history(30);
    const page = await listEvents(accountId, { startDate: new Date(start + 10_000), endDate: new Date(start + 19_000), limit: 100 }, Date.now());
    expect(page.events.map((event) => event.data.index)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
    expect(page.nextCursor).toBeNull();
    const typed = await listEvents(
      accountId,
      { type: 'email.sent', startDate: new Date(start + 10_000), endDate: new Date(start + 19_000), limit: 100 },
      Date.now(),
    );
    expect(typed.events.map((event) => event.data.index)).toEqual([18, 15, 12]);
  });

  it('refuses a start after the end on startDate', async () => {
    const { accountId } = await createTestAccount();
    const reply = await refusal(listEvents(accountId, { startDate: new Date('2026-11-02'), endDate: new Date('2026-11-01'), limit: 10 }, Date.now()));
    expect(reply).toMatchObject({ status: 422, body: { error: 'VALIDATION_ERROR', field: 'startDate' } });
  });

  it("lists one email's events oldest first", async () => {
    const { accountId } = await history(30);
    const first = await listEmailEvents(accountId, 'eml_a', { limit: 4 }, Date.now());
    const rest = await listEmailEvents(accountId, 'eml_a', { limit: 100, cursor: first.nextCursor! }, Date.now());
    expect([...first.events, ...rest.events].map((event) => event.data.index)).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25, 28]);
    expect((await listEmailEvents(accountId, 'eml_other', { limit: 10 }, Date.now())).events).toEqual([]);
  });

  it('keeps every account to its own events', async () => {
    const { accountId } = await history(3);
    const other = await createTestAccount();
    expect((await listEvents(other.accountId, { limit: 100 }, Date.now())).events).toEqual([]);
    expect((await listEvents(accountId, { limit: 100 }, Date.now())).events).toHaveLength(3);
  });
});

describe('cursors', () => {
  async function cursorOf(accountId: string, options: { type?: (typeof EVENT_TYPES)[number] } = {}) {
    for (let index = 0; index < 3; index++)
      await recordEvent(accountId, { type: 'email.sent', data: { index }, sourceKey: `cursor:${index}` }, Date.now() - index);
    const page = await listEvents(accountId, { limit: 1, ...options }, Date.now());
    expect(page.nextCursor).toEqual(expect.any(String));
    return page.nextCursor!;
  }

  it('are opaque: no key, account or id in clear', async () => {
    const { accountId } = await createTestAccount();
    const cursor = await cursorOf(accountId);
    expect(cursor).not.toContain(accountId);
    expect(cursor).not.toMatch(/evt_|acc_/);
  });

  it('refuse a cursor another account was given, as a bad `cursor`', async () => {
    const owner = await createTestAccount();
    const other = await createTestAccount();
    const cursor = await cursorOf(owner.accountId);
    const reply = await refusal(listEvents(other.accountId, { limit: 10, cursor }, Date.now()));
    expect(reply).toMatchObject({ status: 422, body: { success: false, error: 'VALIDATION_ERROR', field: 'cursor' } });
  });

  it('refuse a cursor edited by hand, one of another filter, and garbage', async () => {
    const { accountId } = await createTestAccount();
    const cursor = await cursorOf(accountId);
    const [payload, signature] = cursor.split('.') as [string, string];
    const position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, string>;
    const forged = `${Buffer.from(JSON.stringify({ ...position, gsi1pk: 'acc_someoneelse#EVT' })).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${payload}.${signature.slice(1)}`, 'not-a-cursor', '', `${payload}.${signature}.x`]) {
      const reply = await refusal(listEvents(accountId, { limit: 10, cursor: bad || 'x' }, Date.now()));
      expect(reply.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'cursor' });
    }
    const reply = await refusal(listEvents(accountId, { limit: 10, type: 'email.sent', cursor }, Date.now()));
    expect(reply.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'cursor' });
  });
});
