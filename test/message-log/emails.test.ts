/**
 * The message log over HTTP: GET /api/emails pages through thousands of
 * records at the same DynamoDB cost per page, newest first, with filters and
 * signed cursors; GET /api/emails/:id/events and GET /api/events list events.
 * Records are written through the store module (a send per record would take
 * minutes); what is read is read over HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { putEmailRecords, type EmailRecord } from '#shared/messages/store.ts';
import { recordEvent } from '#shared/events/service.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { idAt } from '#shared/platform/ids.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';

const meter = meterDynamoDb();

function record(at: number, fields: Partial<EmailRecord> = {}): EmailRecord {
  // Its own time, as a send makes it (newId never goes back, and these are made out of order).
  const emailId = idAt('eml', at);
  return {
    emailId,
    trackingId: `svc_${at}_${emailId.slice(4)}`,
    type: 'email',
    from: 'News <news@example.com>',
    to: `reader-${at % 7}@example.com`,
    cc: [],
    bcc: [],
    subject: 'Hello',
    status: 'sent',
    test: false,
    createdAt: new Date(at).toISOString(),
    ...fields,
  };
}

/** `count` records, one a second up to a minute ago, newest last; answers their ids newest first. */
async function history(accountId: string, count: number, fields: (index: number) => Partial<EmailRecord> = () => ({})): Promise<EmailRecord[]> {
  const start = Date.now() - 60_000 - count * 1000;
  const records = Array.from({ length: count }, (_, index) => record(start + index * 1000, fields(index)));
  await putEmailRecords(accountId, records, retentionExpiry(Date.now()));
  return records.reverse();
}

type Page = { status: number; body: { emails: { id: string; to: string; status: string }[]; pagination: { limit: number; nextCursor: string | null } } };

async function walk(key: string, query: string, onPage?: (page: Page) => void): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await request('GET', `/api/emails?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(page.status).toBe(200);
    onPage?.(page);
    seen.push(...page.body.emails.map((email) => email.id));
    cursor = page.body.pagination.nextCursor;
  } while (cursor);
  return seen;
}

describe('GET /api/emails', () => {
  let large: { key: string; ids: string[] };
  beforeAll(async () => {
    const { accountId, key } = await createTestAccount();
    const records = await history(accountId, 2500, (index) => (index % 500 === 0 ? { status: 'bounced' } : {}));
    large = { key, ids: records.map((item) => item.emailId) };
  }, 120_000);

  it('pages through thousands of emails newest first at constant cost per page', async () => {
    // Warm: the cursor key is read once per cold start, not per page.
    await request('GET', '/api/emails?limit=1', { key: large.key });
    const costs: { roundTrips: number; readUnits: number }[] = [];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      meter.reset();
      const page: Page = await request('GET', `/api/emails?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: large.key });
      costs.push(meter.usage());
      expect(page.body.pagination.limit).toBe(100);
      seen.push(...page.body.emails.map((email) => email.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(large.ids);
    // 25 full pages (and a last empty one): the first page costs what the twenty-fifth does.
    expect(costs.length).toBeGreaterThanOrEqual(25);
    // Per page: the key and its rate window, the one Query, and at most once a minute the key's last-used stamp.
    expect(Math.max(...costs.map((cost) => cost.roundTrips))).toBeLessThanOrEqual(4);
    const units = costs.slice(0, 25).map((cost) => cost.readUnits);
    expect(units.every((read) => read === units[0])).toBe(true);
  }, 60_000);

  it('answers 20 by default, and a filtered page reads at most ten times its limit', async () => {
    await request('GET', '/api/emails?limit=1', { key: large.key });
    const first = await request('GET', '/api/emails', { key: large.key });
    expect(first.body.emails).toHaveLength(20);
    expect(first.body.pagination).toEqual({ limit: 20, nextCursor: expect.any(String) });
    expect(first.body.emails[0]).toMatchObject({ id: large.ids[0], trackingId: expect.stringMatching(/^svc_/), status: 'sent', cc: [], replyTo: null });

    const pages: number[] = [];
    const costs: number[] = [];
    let cursor: string | null = null;
    const bounced: string[] = [];
    do {
      meter.reset();
      const page: Page = await request('GET', `/api/emails?status=bounced&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        key: large.key,
      });
      costs.push(meter.usage().readUnits);
      pages.push(page.body.emails.length);
      bounced.push(...page.body.emails.map((email) => email.id));
      expect(page.body.emails.every((email) => email.status === 'bounced')).toBe(true);
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(bounced).toEqual(large.ids.filter((_, index) => (2499 - index) % 500 === 0));
    // 2,500 emails at 100 read a page: 25 pages, most of them empty but each bounded.
    expect(pages.length).toBeGreaterThanOrEqual(25);
    expect(Math.max(...costs)).toBeLessThanOrEqual(costs[0]! * 1.2 + 1);
  }, 60_000);

  it('filters by recipient (its own list, compared case-insensitively) and by dates, inclusive', async () => {
    const { accountId, key } = await createTestAccount();
    const records = await history(accountId, 30);
    const to = records[0]!.to;
    const mine = records.filter((item) => item.to === to).map((item) => item.emailId);
    expect(await walk(key, `to=${encodeURIComponent(to.toUpperCase())}&limit=2`)).toEqual(mine);

    const [newest, , third] = records;
    const range = `startDate=${encodeURIComponent(third!.createdAt)}&endDate=${encodeURIComponent(newest!.createdAt)}`;
    expect(await walk(key, range)).toEqual(records.slice(0, 3).map((item) => item.emailId));
    const day = newest!.createdAt.slice(0, 10);
    expect((await walk(key, `startDate=${day}&endDate=${day}`)).length).toBeGreaterThan(0);
    expect(await walk(key, 'startDate=2001-01-01&endDate=2001-01-02')).toEqual([]);
  });

  it('refuses bad filters, limits and cursors with the field that is wrong', async () => {
    const { accountId, key } = await createTestAccount();
    await history(accountId, 3);
    const cursor = (await request('GET', '/api/emails?limit=1', { key })).body.pagination.nextCursor;
    const other = await createTestAccount();
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['status=opened', 'status'],
      ['to=not-an-address', 'to'],
      ['broadcastId=123', 'broadcastId'],
      ['startDate=yesterday', 'startDate'],
      ['endDate=2026-02-30', 'endDate'],
      ['startDate=2026-11-02&endDate=2026-11-01', 'startDate'],
      ['cursor=garbage', 'cursor'],
      // A cursor of another filter.
      [`status=sent&cursor=${encodeURIComponent(cursor)}`, 'cursor'],
    ];
    for (const [query, field] of cases) {
      const response = await request('GET', `/api/emails?${query}`, { key });
      expect(response, query).toMatchObject({ status: expect.any(Number), body: { success: false, field } });
      expect([400, 422], query).toContain(response.status);
    }
    // Another account's cursor is nobody's position in this account.
    expect(await request('GET', `/api/emails?cursor=${encodeURIComponent(cursor)}`, { key: other.key })).toMatchObject({
      status: 422,
      body: { error: 'VALIDATION_ERROR', field: 'cursor' },
    });
    expect(await request('GET', '/api/emails', { key: other.key })).toMatchObject({ status: 200, body: { emails: [], pagination: { nextCursor: null } } });
  });

  it('is refused to a sending key', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });
    expect(await request('GET', '/api/emails', { key })).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
  });
});

describe('GET /api/emails/:id/events and GET /api/events', () => {
  async function emailWithEvents(
    accountId: string,
    types: ('email.sent' | 'email.delivered' | 'email.bounced')[],
  ): Promise<{ emailId: string; eventIds: string[] }> {
    const [email] = await history(accountId, 1);
    const start = Date.now() - 10_000;
    const eventIds: string[] = [];
    for (const [index, type] of types.entries()) {
      const { event } = await recordEvent(
        accountId,
        { type, data: { emailId: email!.emailId, to: email!.to }, sourceKey: `test:${email!.emailId}:${index}` },
        start + index * 1000,
      );
      eventIds.push(event.id);
    }
    return { emailId: email!.emailId, eventIds };
  }

  it("lists an email's events oldest first, by email id or tracking id, with a cursor", async () => {
    const { accountId, key } = await createTestAccount();
    const { emailId, eventIds } = await emailWithEvents(accountId, ['email.sent', 'email.delivered', 'email.bounced']);
    const first = await request('GET', `/api/emails/${emailId}/events?limit=2`, { key });
    expect(first).toMatchObject({ status: 200, body: { success: true, pagination: { limit: 2, nextCursor: expect.any(String) } } });
    expect(first.body.events.map((event: { id: string }) => event.id)).toEqual(eventIds.slice(0, 2));
    expect(first.body.events[0]).toMatchObject({ type: 'email.sent', createdAt: expect.any(String), data: { emailId } });
    const rest = await request('GET', `/api/emails/${emailId}/events?limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, { key });
    expect(rest.body.events.map((event: { id: string }) => event.id)).toEqual(eventIds.slice(2));
    expect(rest.body.pagination.nextCursor).toBeNull();
  });

  it("answers another account's email, an unknown one and a malformed id with 404 EMAIL_NOT_FOUND", async () => {
    const owner = await createTestAccount();
    const { emailId } = await emailWithEvents(owner.accountId, ['email.sent']);
    const { key } = await createTestAccount();
    for (const id of [emailId, 'eml_00000000000000000000', 'nope']) {
      expect(await request('GET', `/api/emails/${id}/events`, { key })).toMatchObject({ status: 404, body: { error: 'EMAIL_NOT_FOUND' } });
    }
  });

  it("lists the account's events newest first, by type and dates, and refuses a bad type", async () => {
    const { accountId, key } = await createTestAccount();
    const { eventIds } = await emailWithEvents(accountId, ['email.sent', 'email.delivered', 'email.bounced']);
    const all = await request('GET', '/api/events', { key });
    expect(all).toMatchObject({ status: 200, body: { success: true, pagination: { limit: 20, nextCursor: null } } });
    expect(all.body.events.map((event: { id: string }) => event.id)).toEqual([...eventIds].reverse());
    const newest = await request('GET', '/api/events?limit=2', { key });
    expect(newest.body.events.map((event: { id: string }) => event.id)).toEqual([eventIds[2], eventIds[1]]);
    const oldest = await request('GET', `/api/events?limit=2&cursor=${encodeURIComponent(newest.body.pagination.nextCursor)}`, { key });
    expect(oldest.body).toMatchObject({ events: [{ id: eventIds[0] }], pagination: { nextCursor: null } });
    const bounced = await request('GET', '/api/events?type=email.bounced', { key });
    expect(bounced.body.events.map((event: { id: string }) => event.id)).toEqual([eventIds[2]]);
    expect(await request('GET', '/api/events?type=email.nope', { key })).toMatchObject({ status: 422, body: { error: 'VALIDATION_ERROR', field: 'type' } });
    expect(await request('GET', '/api/events?startDate=2026-13-01', { key })).toMatchObject({ status: 422, body: { field: 'startDate' } });
    expect(await request('GET', '/api/events?limit=500', { key })).toMatchObject({ status: 422, body: { field: 'limit' } });
    // A range wholly before retention is empty, not an error.
    expect(await request('GET', '/api/events?startDate=2001-01-01&endDate=2001-01-02', { key })).toMatchObject({ status: 200, body: { events: [] } });
    const other = await createTestAccount();
    expect(await request('GET', '/api/events', { key: other.key })).toMatchObject({ status: 200, body: { events: [] } });
  });
});
