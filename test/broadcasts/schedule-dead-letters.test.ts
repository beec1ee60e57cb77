/**
 * A scheduled broadcast whose start EventBridge Scheduler could not put on
 * the broadcast queue: after the schedule's retry policy the step is a dead
 * letter, in AWS's shape, on the schedules' dead-letter queue, and `admin
 * broadcasts replay` starts the broadcast from it once the cause is fixed. A
 * start that comes after its broadcast moved on (sent, cancelled, deleted,
 * back to draft, moved to another time), replayed or held back by SQS,
 * changes nothing. The faults are injected at the local scheduler's target
 * put: a local SQS cannot be made to refuse the Scheduler role on demand.
 */
import { GetQueueUrlCommand, PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localScheduler, type TargetFault } from '#dev/local/scheduler.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { BROADCAST_SCHEDULE_RETRY } from '#shared/broadcasts/policy.ts';
import { admin, messagesIn } from '../support/admin-cli.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, type Sender } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue, mixedAudience, readBroadcast, sendWith } from './support.ts';

const CONTENT = '<p>Hi {{firstName}}</p><p><a href="{{unsubscribeUrl}}">Leave</a></p>';
/** SQS refusing the Scheduler role (its grant taken away): an error Scheduler does not retry. */
const ACCESS_DENIED: TargetFault = {
  code: 'AccessDenied',
  message: 'Access to the resource https://sqs.us-east-1.amazonaws.com/ is denied.',
  retryable: false,
};
/** SQS throttling: an error Scheduler retries. */
const THROTTLED: TargetFault = { code: 'RequestThrottled', message: 'Request is throttled.', retryable: true };

let deadLetters: string;
beforeAll(async () => {
  deadLetters = (await sqs.send(new GetQueueUrlCommand({ QueueName: config.BROADCAST_SCHEDULE_DLQ_ARN!.split(':').pop()! }))).QueueUrl!;
});
afterEach(async () => {
  localScheduler().failTargetPuts(undefined);
  // What a test left there (bodies the replay refused) is no other test's.
  await sqs.send(new PurgeQueueCommand({ QueueUrl: deadLetters }));
});

/** An hour ahead, in whole seconds, as Scheduler's `at(…)` takes it. */
function anHourAhead(hours = 1): Date {
  const at = new Date(Date.now() + hours * 3_600_000);
  at.setUTCMilliseconds(0);
  return at;
}

/** A broadcast of the audience scheduled for `at` over HTTP, with its own subject to find its messages by. */
async function scheduled(sender: Sender, audienceId: string, subject: string, at: Date): Promise<string> {
  const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT, subject });
  expect((await sendWith(sender.key, broadcast.id, { scheduledAt: at.toISOString() })).status).toBe(202);
  return broadcast.id;
}

/** The schedules' dead letters now, left visible for the replay. */
async function deadLettered(): Promise<{ Body?: string; MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }> }[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: deadLetters, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageAttributeNames: ['All'] }),
  );
  return Messages;
}

const replay = () => admin(['broadcasts', 'replay', '--queue', deadLetters, '--to', config.BROADCAST_QUEUE_URL!]);

async function sentWithSubject(sender: Sender, subject: string): Promise<number> {
  return (await storedEmails(sender.domain)).filter((email) => email.subject === subject).length;
}

describe("a scheduled broadcast's start Scheduler could not queue", () => {
  it("is a dead letter in AWS's shape; admin broadcasts replay starts the broadcast, and every subscribed contact gets it once", async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 8);
    const at = anHourAhead();
    const id = await scheduled(sender, audienceId, 'Launch', at);

    localScheduler().failTargetPuts(ACCESS_DENIED);
    expect(await localScheduler().fireDue(at)).toContain(`${sender.accountId}.${id}`);
    localScheduler().failTargetPuts(undefined);
    await drainBroadcastQueue();

    expect(await readBroadcast(sender.key, id)).toMatchObject({ status: 'scheduled', scheduledAt: at.toISOString() });
    expect(await storedEmails(sender.domain)).toEqual([]);
    const [letter, ...others] = await deadLettered();
    expect(others).toEqual([]);
    // The target's input as the body; an error Scheduler does not retry has no EXHAUSTED_RETRY_CONDITION.
    expect(JSON.parse(letter!.Body!)).toEqual({ kind: 'start', accountId: sender.accountId, broadcastId: id, scheduledAt: at.toISOString() });
    expect(letter!.MessageAttributes).toEqual({
      ERROR_CODE: { DataType: 'String', StringValue: 'AccessDenied' },
      ERROR_MESSAGE: { DataType: 'String', StringValue: ACCESS_DENIED.message },
      EXECUTION_ID: { DataType: 'String', StringValue: expect.stringMatching(/^[0-9a-f]{16}$/) },
      IS_PAYLOAD_TRUNCATED: { DataType: 'String', StringValue: 'false' },
      RETRY_ATTEMPTS: { DataType: 'String', StringValue: '0' },
      SCHEDULED_TIME: { DataType: 'String', StringValue: `${at.toISOString().slice(0, 19)}Z` },
      SCHEDULE_ARN: { DataType: 'String', StringValue: `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${sender.accountId}.${id}` },
      TARGET_ARN: { DataType: 'String', StringValue: config.BROADCAST_QUEUE_ARN },
    });

    const replayed = await replay();
    await drainBroadcastQueue();

    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(replayed.stdout)).toEqual({ replayed: 1, failed: 0, requeued: 1 });
    const subscribed = contacts.filter((contact) => contact.status === 'subscribed');
    expect(await broadcastWhen(sender.key, id, ['sent'])).toMatchObject({ status: 'sent', counts: { sent: subscribed.length } });
    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination.to[0]).sort()).toEqual(subscribed.map((contact) => contact.email).sort());
    expect(await messagesIn(deadLetters)).toBe(0);
  });

  it("is tried again under the schedule's retry policy: a put that fails a few times still starts it, one that keeps failing becomes a dead letter", async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 2);
    const at = anHourAhead();
    const passes = await scheduled(sender, audienceId, 'Passes', at);
    const keepsFailing = await scheduled(sender, audienceId, 'Keeps failing', anHourAhead(2));

    localScheduler().failTargetPuts(THROTTLED, 3);
    await localScheduler().fireDue(at);
    localScheduler().failTargetPuts(THROTTLED);
    await localScheduler().fireDue(anHourAhead(2));
    localScheduler().failTargetPuts(undefined);
    await drainBroadcastQueue();

    expect(await readBroadcast(sender.key, passes)).toMatchObject({ status: 'sent' });
    expect(await readBroadcast(sender.key, keepsFailing)).toMatchObject({ status: 'scheduled' });
    const letters = await deadLettered();
    expect(letters.map((letter) => JSON.parse(letter.Body!).broadcastId)).toEqual([keepsFailing]);
    expect(letters[0]!.MessageAttributes).toMatchObject({
      ERROR_CODE: { StringValue: THROTTLED.code },
      RETRY_ATTEMPTS: { StringValue: String(BROADCAST_SCHEDULE_RETRY.MaximumRetryAttempts) },
      EXHAUSTED_RETRY_CONDITION: { StringValue: 'MaximumRetryAttempts' },
    });
  });

  it('does nothing, replayed or delivered late, for a broadcast sent, cancelled, deleted, turned back into a draft or moved to another time since', async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 4);
    const at = anHourAhead();
    const [sent, cancelled, deleted, draft, moved] = await Promise.all(
      ['Sent', 'Cancelled', 'Deleted', 'Draft', 'Moved'].map((subject) => scheduled(sender, audienceId, subject, at)),
    );
    localScheduler().failTargetPuts(ACCESS_DENIED);
    await localScheduler().fireDue(at);
    localScheduler().failTargetPuts(undefined);
    const steps = (await deadLettered()).map((letter) => letter.Body!);
    expect(steps).toHaveLength(5);

    // Meanwhile, each moves on over the API.
    expect((await sendWith(sender.key, sent!, { scheduledAt: new Date(Date.now() - 60_000).toISOString() })).status).toBe(202);
    await drainBroadcastQueue();
    expect((await request('POST', `/api/broadcasts/${cancelled}/cancel`, { key: sender.key })).status).toBe(200);
    expect((await request('DELETE', `/api/broadcasts/${deleted}`, { key: sender.key })).status).toBe(200);
    expect((await request('PATCH', `/api/broadcasts/${draft}`, { key: sender.key, body: { scheduledAt: null } })).body.data).toMatchObject({ status: 'draft' });
    const later = anHourAhead(3);
    expect((await request('PATCH', `/api/broadcasts/${moved}`, { key: sender.key, body: { scheduledAt: later.toISOString() } })).status).toBe(200);

    const replayed = await replay();
    // And the same steps reaching the worker all the same: one SQS held back, or a replay racing the change.
    for (const step of steps) await sqs.send(new SendMessageCommand({ QueueUrl: config.BROADCAST_QUEUE_URL!, MessageBody: step }));
    await drainBroadcastQueue();

    expect(JSON.parse(replayed.stdout)).toEqual({ replayed: 5, failed: 0, requeued: 0 });
    const subscribed = contacts.filter((contact) => contact.status === 'subscribed').length;
    expect(await readBroadcast(sender.key, sent!)).toMatchObject({ status: 'sent', counts: { sent: subscribed } });
    expect(await sentWithSubject(sender, 'Sent')).toBe(subscribed);
    expect(await readBroadcast(sender.key, cancelled!)).toMatchObject({ status: 'cancelled', startedAt: null });
    expect((await request('GET', `/api/broadcasts/${deleted}`, { key: sender.key })).status).toBe(404);
    expect(await readBroadcast(sender.key, draft!)).toMatchObject({ status: 'draft', startedAt: null });
    expect(await readBroadcast(sender.key, moved!)).toMatchObject({ status: 'scheduled', scheduledAt: later.toISOString(), startedAt: null });
    for (const subject of ['Cancelled', 'Deleted', 'Draft', 'Moved']) expect(await sentWithSubject(sender, subject), subject).toBe(0);
    // The moved broadcast keeps its own schedule, which starts it at its new time.
    expect(
      localScheduler()
        .schedules()
        .filter((schedule) => schedule.name.endsWith(moved!))
        .map((schedule) => schedule.at),
    ).toEqual([later]);
  });

  it('replays a step Scheduler wrapped in its SendMessage request, and keeps every body that is no start step', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 2);
    const at = anHourAhead();
    const id = await scheduled(sender, audienceId, 'Wrapped', at);
    const step = { kind: 'start', accountId: sender.accountId, broadcastId: id, scheduledAt: at.toISOString() };
    const bodies = [
      JSON.stringify({ MessageBody: JSON.stringify(step), QueueUrl: config.BROADCAST_QUEUE_URL }),
      'not json',
      JSON.stringify({ kind: 'plan', accountId: sender.accountId, broadcastId: id, batch: 0, recipients: 0 }),
      JSON.stringify({ kind: 'start', accountId: sender.accountId }),
      JSON.stringify({ MessageBody: 'Hello, world!' }),
    ];
    for (const body of bodies) await sqs.send(new SendMessageCommand({ QueueUrl: deadLetters, MessageBody: body }));

    const replayed = await replay();
    await drainBroadcastQueue();

    expect(JSON.parse(replayed.stdout)).toEqual({ replayed: 1, failed: 4, requeued: 1 });
    expect(await broadcastWhen(sender.key, id, ['sent'])).toMatchObject({ status: 'sent' });
    expect(await messagesIn(deadLetters)).toBe(4);
  });
});
