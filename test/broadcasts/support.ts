/**
 * Broadcast tests: an audience of mixed contacts made over the API, and the
 * broadcast worker run as `npm start` runs it (the local queue poller over
 * this file's broadcast queue).
 */
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { request } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { uniqueAddress, type Sender } from '../sending/support.ts';

export interface PlannedContact {
  email: string;
  firstName: string;
  status: 'subscribed' | 'unsubscribed' | 'pending' | 'bounced';
  tags: string[];
  customFields: Record<string, string | number | boolean>;
}

/**
 * `count` contacts in one new audience, by bulk import: every fifth
 * unsubscribed, every seventh pending, every eleventh bounced; tags `a` on
 * even ones, `b` on multiples of three; custom field `plan` alternating
 * `pro` and `free`.
 */
export async function mixedAudience(sender: Sender, count: number): Promise<{ audienceId: string; contacts: PlannedContact[] }> {
  const audience = await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Mixed' } });
  const audienceId = audience.body.data.id as string;
  const contacts: PlannedContact[] = Array.from({ length: count }, (_, index) => ({
    email: uniqueAddress(`c${index}`),
    firstName: `Name${index}`,
    status: index % 5 === 4 ? 'unsubscribed' : index % 7 === 6 ? 'pending' : index % 11 === 10 ? 'bounced' : 'subscribed',
    tags: [...(index % 2 === 0 ? ['a'] : []), ...(index % 3 === 0 ? ['b'] : [])],
    customFields: { plan: index % 2 === 0 ? 'pro' : 'free', rank: index },
  }));
  for (let start = 0; start < contacts.length; start += 500) {
    const response = await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId, contacts: contacts.slice(start, start + 500) } });
    if (response.status !== 200) throw new Error(`import: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return { audienceId, contacts };
}

/** POST /api/broadcasts/:id/send with `key`: sends, schedules or resumes, as the broadcast's status has it. */
export function sendWith(key: string, id: string, body: Record<string, unknown> = {}) {
  return request('POST', `/api/broadcasts/${id}/send`, { key, body });
}

/** The broadcast as GET answers it now (`data`). */
export async function readBroadcast(key: string, id: string): Promise<any> {
  return (await request('GET', `/api/broadcasts/${id}`, { key })).body.data;
}

/** Every stored message went to a distinct address, and these are exactly the expected ones. */
export function expectOneEach(stored: readonly { destination: { to: string[] } }[], expected: readonly string[]): void {
  const to = stored.map((email) => email.destination.to[0]!);
  expect(new Set(to).size).toBe(to.length);
  expect(to.sort()).toEqual([...expected].sort());
}

/** The email records of a broadcast, from the message log (at most 100). */
export async function broadcastRecords(key: string, id: string): Promise<{ to: string; status: string; test: boolean }[]> {
  const response = await request('GET', `/api/emails?broadcastId=${id}&limit=100`, { key });
  expect(response.status).toBe(200);
  expect(response.body.pagination.nextCursor).toBeNull();
  return response.body.emails;
}

export async function createBroadcast(sender: Sender, body: Record<string, unknown>, key = sender.key): Promise<any> {
  const response = await request('POST', '/api/broadcasts', { key, body: { from: sender.from, subject: 'News for {{firstName}}', ...body } });
  if (response.status !== 201) throw new Error(`create: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** The broadcast once it reaches one of `statuses` (or the last read, for the test's assertion to report). */
export async function broadcastWhen(key: string, id: string, statuses: readonly string[], timeoutMs = 30_000): Promise<any> {
  return (
    await eventually(
      () => request('GET', `/api/broadcasts/${id}`, { key }),
      (response) => statuses.includes(response.body.data?.status),
      timeoutMs,
    )
  ).body.data;
}

/**
 * Runs the broadcast worker over this file's queue until it is empty, as the
 * event source would but deterministically: a message the worker keeps (it
 * threw, or reported it failed) is received again a second later, as after a
 * visibility timeout. `only` limits it to some steps (the rest stay queued);
 * it also stops after two receives that brought nothing (a step delayed
 * longer stays queued).
 */
export async function drainBroadcastQueue(options: { only?: (step: { kind: string }) => boolean; timeoutMs?: number } = {}): Promise<number> {
  const [
    { ReceiveMessageCommand, DeleteMessageCommand, ChangeMessageVisibilityCommand },
    { sqs },
    { config },
    { handler },
    { invokedAs },
    { sqsEvent, keptMessages },
    { messagesIn },
  ] = await Promise.all([
    import('@aws-sdk/client-sqs'),
    import('#shared/sending/retry-queue.ts'),
    import('#shared/platform/config.ts'),
    import('#functions/broadcasts/work.ts'),
    import('#dev/local/invocation.ts'),
    import('#dev/local/queue-poller.ts'),
    import('../support/admin-cli.ts'),
  ]);
  const queueUrl = config.BROADCAST_QUEUE_URL!;
  const worker = invokedAs('broadcasts/work', handler);
  const deadline = Date.now() + (options.timeoutMs ?? 45_000);
  let invocations = 0;
  let idle = 0;
  // An empty queue (nothing visible, kept or delayed) ends it at once; a receive would only wait out its second.
  while (Date.now() < deadline && idle < 2 && (await messagesIn(queueUrl)) > 0) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 1,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const wanted = Messages.filter((message) => !options.only || options.only(JSON.parse(message.Body!)));
    for (const other of Messages.filter((message) => !wanted.includes(message))) {
      await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: other.ReceiptHandle!, VisibilityTimeout: 0 }));
    }
    idle = wanted.length === 0 ? idle + 1 : 0;
    for (const message of wanted) {
      const event = sqsEvent([message], 'arn:aws:sqs:us-east-1:000000000000:broadcasts', 'us-east-1');
      invocations++;
      const kept = keptMessages(event, await worker(event).catch(() => undefined));
      if (!kept.has(message.MessageId!)) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
    if (options.only && wanted.length === 0 && Messages.length > 0) break;
  }
  return invocations;
}

/**
 * When each message of a sender's domain left for SES, to the millisecond
 * (the emulator keeps whole seconds): a step on the SES client's middleware
 * that only looks, so the pacing tests can measure rates. Stop it in afterAll.
 */
export async function recordSendTimes(): Promise<{ of: (domain: string) => number[]; stop: () => void }> {
  const { ses } = await import('#shared/sending/transport.ts');
  const sent: { from: string; at: number }[] = [];
  const name = `sendTimes-${Math.random()}`;
  ses.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { FromEmailAddress?: string };
      if (context.commandName === 'SendEmailCommand' && input.FromEmailAddress) sent.push({ from: input.FromEmailAddress, at: Date.now() });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    of: (domain) => sent.filter((message) => message.from.replace(/>$/, '').endsWith(`@${domain}`)).map((message) => message.at),
    stop: () => void ses.middlewareStack.remove(name),
  };
}

/**
 * The pacing tests' fixture: three broadcast workers, as `npm start` runs
 * them, and the SES send times, from before the file's tests to after them.
 */
export function workersWithSendTimes(): { of: (domain: string) => number[] } {
  let stopWorker: (() => Promise<void>) | undefined;
  let sendTimes: Awaited<ReturnType<typeof recordSendTimes>> | undefined;
  beforeAll(async () => {
    const { startBroadcastWorker } = await import('#dev/local/broadcast-worker.ts');
    stopWorker = (await startBroadcastWorker({ concurrency: 3 })).stop;
    sendTimes = await recordSendTimes();
  });
  afterAll(async () => {
    sendTimes?.stop();
    await stopWorker?.();
  });
  return { of: (domain) => sendTimes!.of(domain) };
}

/** A broadcast of `count` mixed contacts, sent now; its subscribed addresses. */
export async function sendBroadcast(sender: Sender, count: number): Promise<{ id: string; subscribed: string[] }> {
  const { audienceId, contacts } = await mixedAudience(sender, count);
  const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p>' });
  const sent = await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
  expect(sent.status).toBe(202);
  return { id: broadcast.id, subscribed: contacts.filter((contact) => contact.status === 'subscribed').map((contact) => contact.email) };
}

/**
 * The steps of this kind put on the broadcast queue from now on, as the queue
 * receives them, with their delay: for batches, the planner's, then each one
 * the engine puts back (a spy on the SQS client that only looks;
 * vi.restoreAllMocks removes it).
 */
export async function queuedSteps(kind: 'plan' | 'batch'): Promise<{ step: Record<string, any>; delaySeconds: number }[]> {
  const { sqs } = await import('#shared/sending/retry-queue.ts');
  const queued: { step: Record<string, any>; delaySeconds: number }[] = [];
  const send = sqs.send.bind(sqs);
  vi.spyOn(sqs, 'send').mockImplementation((async (command: { input?: { Entries?: { MessageBody?: string; DelaySeconds?: number }[] } }) => {
    for (const entry of command.input?.Entries ?? []) {
      const step = JSON.parse(entry.MessageBody ?? '{}');
      if (step.kind === kind) queued.push({ step, delaySeconds: entry.DelaySeconds ?? 0 });
    }
    return send(command as never);
  }) as typeof sqs.send);
  return queued;
}

/** Unsubscribes these contacts of the audience over the API, as they would themselves. */
export async function unsubscribeContacts(sender: Sender, audienceId: string, emails: readonly string[]): Promise<void> {
  for (const email of emails) {
    const contact = await request('GET', `/api/contacts/email/${encodeURIComponent(email)}?audienceId=${audienceId}`, { key: sender.key });
    await request('PATCH', `/api/contacts/${contact.body.data.id}`, { key: sender.key, body: { status: 'unsubscribed' } });
  }
}

/**
 * Asserts that by each send time t, no more than rate × (t − first + 1) of
 * these messages had been sent (a second's burst at most), and that they are
 * spread over at least the time the rate needs for them, less a second.
 * Counted from the first message rather than in every window: a send is seen
 * when its SDK call starts, some time after its slot, and a busy machine delays
 * some more than others, which bunches them in short windows without any burst
 * by the pacer; a count from the start only ever falls behind its slots,
 * except that the first send itself may be seen late, which shifts the start:
 * one message of slack covers it (an unpaced engine sends them all at once,
 * far past it).
 */
export function expectPacedAt(times: readonly number[], rate: number): void {
  const sorted = [...times].sort((a, b) => a - b);
  for (const [index, at] of sorted.entries()) {
    const seconds = (at - sorted[0]!) / 1000;
    expect(index + 1, `${index + 1} messages in the first ${seconds} s`).toBeLessThanOrEqual(rate * (seconds + 1) + 1);
  }
  expect((sorted.at(-1)! - sorted[0]!) / 1000).toBeGreaterThanOrEqual((sorted.length - 1) / rate - 1);
}
