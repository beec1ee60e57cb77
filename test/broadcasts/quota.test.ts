/**
 * A broadcast at the end of the monthly quota, as a client sees it: it sends
 * to the last email the quota allows, then pauses with QUOTA_EXCEEDED;
 * resumed once quota is available, it reaches every recipient of its
 * snapshot exactly once and ends `sent`, however far its planning had gone
 * when it paused. The engine's steps run through drainBroadcastQueue.
 */
import { describe, expect, it } from 'vitest';
import { seedContacts } from '../../bench/scale.ts';
import { releaseEmails, reserveEmails } from '#shared/accounts/usage-store.ts';
import { quotaPeriod, showAccount } from '#shared/accounts/service.ts';
import { PLAN_PAGE_SIZE } from '#shared/broadcasts/engine.ts';
import { createAudience } from '../support/arrange.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails } from '../sending/support.ts';
import { createBroadcast, drainBroadcastQueue, expectOneEach, mixedAudience, readBroadcast, sendWith } from './support.ts';

const CONTENT = '<p>Hi {{firstName}}</p>';

/** Makes `emails` of the month's quota available again, as a new month or a raised quota does. */
const freeQuota = (accountId: string, emails: number) => releaseEmails(accountId, quotaPeriod(new Date()), emails);

describe('a broadcast at the end of the quota', { timeout: 90_000 }, () => {
  it('sends to the last email the quota allows, pauses, and sends the rest exactly once when resumed', async () => {
    const sender = await createSender({ quota: 2 });
    // Four contacts, all subscribed.
    const { audienceId, contacts } = await mixedAudience(sender, 4);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });

    await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();

    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({
      status: 'paused',
      pausedReason: 'QUOTA_EXCEEDED',
      counts: { recipients: 4, sent: 2, suppressed: 0, failed: 0, remaining: 2 },
    });
    expect(await storedEmails(sender.domain)).toHaveLength(2);
    expect((await showAccount(sender.accountId))?.emailsRemaining).toBe(0);

    await freeQuota(sender.accountId, 2);
    const resumed = await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();

    expect(resumed.body.data).toMatchObject({ status: 'sending', pausedReason: null });
    expectOneEach(
      await storedEmails(sender.domain),
      contacts.map((contact) => contact.email),
    );
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'sent', counts: { recipients: 4, sent: 4, remaining: 0 } });
  });

  it('paused before its planner reached the end of the audience, resumed, reaches every recipient once and ends sent', async () => {
    // The month has 2 of its 6 emails left: the first page's batch sends two, then the broadcast pauses.
    const sender = await createSender({ quota: 6 });
    await reserveEmails(sender.accountId, quotaPeriod(new Date()), 4, 6);
    const audienceId = await createAudience(sender.key, 'Two pages');
    // Two pages of subscribed contacts; the segment picks three on each, so that the test sends six messages, not a thousand.
    const contacts = await seedContacts(sender.accountId, audienceId, PLAN_PAGE_SIZE + 10, new Date());
    const chosen = [0, 500, PLAN_PAGE_SIZE - 1, PLAN_PAGE_SIZE, PLAN_PAGE_SIZE + 5, PLAN_PAGE_SIZE + 9].map((index) => contacts[index]!);
    for (const contact of chosen) {
      expect((await request('PATCH', `/api/contacts/${contact.contactId}`, { key: sender.key, body: { tags: ['chosen'] } })).status).toBe(200);
    }
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT, segment: { tags: ['chosen'] } });
    await sendWith(sender.key, broadcast.id);

    // The first page is planned and its batch sent until the quota runs out; the second page's step still waits on the queue.
    await drainBroadcastQueue({ only: (step) => step.kind !== 'plan' || (step as { after?: string }).after === undefined });
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'paused', counts: { recipients: 3, sent: 2 } });
    // The planner's next step comes while it is paused.
    await drainBroadcastQueue();

    await freeQuota(sender.accountId, 4);
    await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();

    expectOneEach(
      await storedEmails(sender.domain),
      chosen.map((contact) => contact.email),
    );
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({
      status: 'sent',
      counts: { recipients: 6, sent: 6, suppressed: 0, failed: 0, remaining: 0 },
    });
    const finished = await request('GET', '/api/events?type=broadcast.sent&limit=100', { key: sender.key });
    expect(finished.body.events.filter((event: { data: { broadcastId: string } }) => event.data.broadcastId === broadcast.id)).toHaveLength(1);
  });
});
