/**
 * Webhooks under load (issue 18): events recorded as the API records them,
 * fanned out by the stream poller and delivered by workers running the
 * deployed handlers (dev/local/event-fan-out.ts, dev/local/webhook-worker.ts)
 * to receivers on this machine, one of them slow. Reports each receiver's
 * latency from the event's creation to its delivery, what the fan-out and
 * the delivery worker cost in DynamoDB and Lambda ms per event and per
 * delivery, and all of it per one-recipient send.
 *
 * Lambda runs as many SQS batches at once as the queue needs; locally
 * `workers` pollers stand for that concurrency on the normal lane. A slow
 * receiver's first deliveries hold their batches (the fast receivers'
 * deliveries in them are made at once, in parallel) until one of them is
 * judged slow (still unanswered SLOW_DELIVERY_MS after its batch's first
 * answer); then its endpoint is marked slow and its deliveries go to the slow lane, polled by
 * `slowWorkers` pollers beside them: the stack's
 * WEBHOOK_SLOW_MAX_CONCURRENCY, the same bound as deployed, since that lane's
 * concurrency is a fixed number in AWS, not the region's.
 *
 * Then a tenant who tries (issue 27): its endpoints name a receiver that
 * never answers (each attempt holds a worker until the 10 s timeout), and it
 * changes their URL every couple of seconds while sending test events as
 * fast as the API takes them; another tenant's fast receivers get a paced
 * load beside it, and the same load alone for their baseline.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { DynamoMeter } from './dynamo-meter.ts';
import type { Progress } from './metered.ts';
import { WEBHOOK_SLOW_MAX_CONCURRENCY } from '#shared/webhooks/schedule.ts';

export interface WebhookBenchOptions {
  /** Events of the baseline phase (fast receivers only). */
  events: number;
  /** Events of the phase with the slow receiver: each holds a worker for `slowMs`, so fewer keep the section's wall time reasonable. */
  slowEvents: number;
  endpoints: number;
  /** How long the one slow receiver takes to answer. */
  slowMs: number;
  /** Concurrent worker pollers of the normal lane (Lambda's concurrent batches). */
  workers: number;
  /** Concurrent worker pollers of the slow lane (its event source's maxConcurrency). */
  slowWorkers: number;
  /** Events metered through the fan-out and the delivery worker on their own, for their cost per event and per delivery. */
  meteredEvents: number;
  /** One-recipient sends to an account with one endpoint, metered from the request to the deliveries. */
  sends: number;
  hostile: HostileTenantOptions;
}

/** The tenant who tries, and the paced load another tenant's `endpoints` fast receivers get beside it. */
export interface HostileTenantOptions {
  /** Its endpoints, all at one receiver that never answers. */
  endpoints: number;
  /** How often it gives its endpoints a new URL on that receiver (`?v=n`). */
  urlEveryMs: number;
  /** How often it sends a test event (to each endpoint in turn). */
  testEveryMs: number;
  /** The fast tenant's events, one every `eventEveryMs`, once the onset is over. */
  events: number;
  eventEveryMs: number;
  /**
   * From the attack's start until the fast tenant's measured events: a
   * receiver never seen before gets its first attempts on the normal lane
   * until one of them is judged slow, and those hold their workers until
   * the timeout (as any new slow receiver's do: the slow receiver's phase
   * includes that). The fast tenant's events in this onset are reported
   * apart; the budget is on the ones after, which the tenant could delay
   * only by leaving the slow lane.
   */
  onsetMs: number;
}

/** A fast tenant's paced load beside the hostile tenant, and the same alone. */
export interface HostileTenantFigures {
  /** The fast tenant's receivers, the paced load alone. */
  baseline: LatencyFigures;
  /** The same load, beside the hostile tenant, once the onset is over. */
  fast: LatencyFigures;
  /** The fast tenant's deliveries of events made during the onset. */
  onset: LatencyFigures;
  urlChanges: number;
  testEvents: { accepted: number; refused: number };
  /** Attempts that reached the hostile tenant's receiver (each held its worker 10 s). */
  hostileAttempts: number;
}

export interface Usage {
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
}

/** DynamoDB use and the function's time (in this process; Lambda's billed duration is about this). */
export interface UsageAndMs extends Usage {
  ms: number;
}

/** What one one-recipient send costs with one endpoint subscribed to every event, averaged over the sends. */
export interface PerSendFigures {
  sends: number;
  events: number;
  deliveries: number;
  /** The send request, its events' writes included. */
  request: UsageAndMs;
  fanOut: UsageAndMs;
  delivery: UsageAndMs;
}

export interface LatencyFigures {
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
}

export interface WebhookBenchResults {
  options: WebhookBenchOptions;
  /** The fan-out of one event to `endpoints` endpoints: DynamoDB round trips and units, averaged. */
  fanOutPerEvent: Usage;
  /** The fan-out function's time per event, in this process (Lambda's billed duration is about this). */
  fanOutMsPerEvent: number;
  /** Recording one event (the request's share): round trips and units. */
  recordPerEvent: Usage;
  /** The delivery worker's handler per delivery to a fast receiver: DynamoDB use and its time. */
  perDelivery: UsageAndMs;
  perSend: PerSendFigures;
  /** The same load to fast receivers only: what the fast ones get when no receiver is slow. */
  baseline: LatencyFigures;
  fast: LatencyFigures;
  slow: LatencyFigures;
  totalSeconds: number;
  hostile: HostileTenantFigures;
}

export const WEBHOOK_BENCH: WebhookBenchOptions = {
  events: 1_000,
  slowEvents: 200,
  endpoints: 5,
  slowMs: 2_000,
  workers: 20,
  slowWorkers: WEBHOOK_SLOW_MAX_CONCURRENCY,
  meteredEvents: 50,
  sends: 20,
  // As issue 27 found it: a new URL every 2 s, test events as fast as a client sends them.
  hostile: { endpoints: 3, urlEveryMs: 2_000, testEveryMs: 100, events: 200, eventEveryMs: 100, onsetMs: 13_000 },
};

const LOAD_TYPE = 'email.delivered';

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

function latencies(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return { deliveries: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

/**
 * A receiver that notes each delivery's latency from its event's `createdAt`
 * (and, in `emailIds`, the event's `emailId`: the load's index), answering
 * after `delayMs`, or never when it is `Infinity` (the worker gives up at its
 * timeout).
 */
async function startLatencyReceiver(delayMs: number) {
  const seen: number[] = [];
  const emailIds: string[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests += 1;
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; createdAt: string; data: { emailId?: string } };
      if (event.type === LOAD_TYPE) {
        seen.push(Date.now() - Date.parse(event.createdAt));
        emailIds.push(event.data.emailId ?? '');
      }
      if (delayMs !== Number.POSITIVE_INFINITY) setTimeout(() => response.writeHead(204).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    seen,
    emailIds,
    requests: () => requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const scaled = (usage: Usage, count: number): Usage => ({
  roundTrips: usage.roundTrips / count,
  readUnits: usage.readUnits / count,
  writeUnits: usage.writeUnits / count,
});

const withMs = (usage: Usage, ms: number, count: number): UsageAndMs => ({ ...scaled(usage, count), ms: ms / count });

/** Runs `work`, answering what it spent in DynamoDB and its time, in ms. */
async function metered<T>(meter: DynamoMeter, work: () => Promise<T>): Promise<{ result: T; usage: Usage; ms: number }> {
  meter.reset();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  const { roundTrips, readUnits, writeUnits } = meter.usage();
  return { result, usage: { roundTrips, readUnits, writeUnits }, ms };
}

const sum = (a: Usage, b: Usage): Usage => ({
  roundTrips: a.roundTrips + b.roundTrips,
  readUnits: a.readUnits + b.readUnits,
  writeUnits: a.writeUnits + b.writeUnits,
});
const NONE: Usage = { roundTrips: 0, readUnits: 0, writeUnits: 0 };

/**
 * Hands every queued delivery to the worker's handler in batches, as the SQS
 * event source does, metering and timing the handler only; answers the
 * deliveries it settled.
 */
async function deliverQueued(meter: DynamoMeter): Promise<{ deliveries: number; usage: Usage; ms: number }> {
  const { ReceiveMessageCommand, DeleteMessageCommand } = await import('@aws-sdk/client-sqs');
  const { sqs } = await import('#shared/sending/retry-queue.ts');
  const { config } = await import('#shared/platform/config.ts');
  const { handler } = await import('#functions/webhooks/deliver.ts');
  const { keptMessages, sqsEvent } = await import('#dev/local/queue-poller.ts');
  const { invokedAs } = await import('#dev/local/invocation.ts');
  const { WEBHOOK_BATCH_SIZE } = await import('#shared/webhooks/schedule.ts');
  const worker = invokedAs('webhooks/deliver', handler);
  const queueUrl = config.WEBHOOK_QUEUE_URL!;
  const total = { deliveries: 0, usage: NONE, ms: 0 };
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: WEBHOOK_BATCH_SIZE, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return total;
    const event = sqsEvent(Messages, `arn:aws:sqs:${config.AWS_REGION}:000000000000:${queueUrl.split('/').pop()}`, config.AWS_REGION);
    const { result, usage, ms } = await metered(meter, () => worker(event));
    const kept = keptMessages(event, result);
    if (kept.size > 0) throw new Error(`webhooks: ${kept.size} deliveries to the bench's fast receiver were not settled`);
    await Promise.all(Messages.map((message) => sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }))));
    total.deliveries += Messages.length;
    total.usage = sum(total.usage, usage);
    total.ms += ms;
  }
}

/** Runs the scenario against the bench stack (WEBHOOK_QUEUE_URL and the table's stream set up by bench/stack.ts). */
export async function measureWebhooks(
  meter: DynamoMeter,
  accountId: string,
  options: WebhookBenchOptions = WEBHOOK_BENCH,
  progress: Progress = () => undefined,
): Promise<WebhookBenchResults> {
  const { recordEvent } = await import('#shared/events/service.ts');
  const { createWebhook } = await import('#shared/webhooks/service.ts');
  const { config } = await import('#shared/platform/config.ts');
  const { StreamReader, invokeWithRecords } = await import('#dev/local/stream-poller.ts');
  const { handler } = await import('#functions/events/fan-out.ts');

  // Endpoints that take no delivery of the load, only the metered events', from a receiver that answers at once.
  const meteredReceiver = await startLatencyReceiver(0);
  for (let index = 0; index < options.endpoints; index++) await createWebhook(accountId, { url: meteredReceiver.url, events: ['email.sent'] }, Date.now());

  progress(`webhooks: fan-out cost of ${options.meteredEvents} events to ${options.endpoints} endpoints`);
  const reader = await StreamReader.open(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME, config.AWS_REGION);
  meter.reset();
  for (let index = 0; index < options.meteredEvents; index++) {
    await recordEvent(accountId, { type: 'email.sent', data: { emailId: `eml_${index}` }, sourceKey: `bench:metered:${index}` }, Date.now());
  }
  const recordPerEvent = scaled(meter.usage(), options.meteredEvents);
  const records = await reader.read();
  reader.close();
  const fanOut = await metered(meter, () => invokeWithRecords('events/fan-out', handler as never, records));
  const fanOutMsPerEvent = fanOut.ms / records.length;
  const fanOutPerEvent = scaled(fanOut.usage, records.length);
  progress(`webhooks: delivery worker cost of ${records.length * options.endpoints} deliveries`);
  const delivered = await deliverQueued(meter);
  await meteredReceiver.stop();
  const perDelivery = withMs(delivered.usage, delivered.ms, delivered.deliveries);
  const perSend = await measurePerSend(meter, options.sends, progress);

  const baseline = await deliverLoad(accountId, options.events, options, 0, 'baseline', progress);
  const withSlow = await deliverLoad(accountId, options.slowEvents, options, options.slowMs, 'load', progress);
  const alone = await deliverPaced(options, false, progress);
  const beside = await deliverPaced(options, true, progress);
  const hostile = {
    baseline: alone.fast,
    fast: beside.fast,
    onset: beside.onset,
    ...beside.attack!,
  };
  return { options, recordPerEvent, fanOutPerEvent, fanOutMsPerEvent, perDelivery, perSend, baseline: baseline.fast, ...withSlow, hostile };
}

/**
 * `sends` one-recipient sends over the API, on an account of their own with
 * one endpoint subscribed to every event: each send's request, the fan-out
 * of the events it wrote and their deliveries, metered and timed apart.
 */
async function measurePerSend(meter: DynamoMeter, sends: number, progress: (message: string) => void): Promise<PerSendFigures> {
  const { createWebhook } = await import('#shared/webhooks/service.ts');
  const { config } = await import('#shared/platform/config.ts');
  const { StreamReader, invokeWithRecords } = await import('#dev/local/stream-poller.ts');
  const { startHttpServer } = await import('#dev/local/http-server.ts');
  const { handler } = await import('#functions/events/fan-out.ts');
  const { createBenchAccount, uniqueEmail } = await import('./fixtures.ts');
  const { expectCall } = await import('./stack.ts');
  progress(`webhooks: ${sends} one-recipient sends, one endpoint subscribed to every event`);
  const account = await createBenchAccount();
  const receiver = await startLatencyReceiver(0);
  await createWebhook(account.accountId, { url: receiver.url, events: ['*'] }, Date.now());
  const server = await startHttpServer({ port: 0 });
  const reader = await StreamReader.open(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME, config.AWS_REGION);
  const totals = { events: 0, deliveries: 0, request: { ...NONE, ms: 0 }, fanOut: { ...NONE, ms: 0 }, delivery: { ...NONE, ms: 0 } };
  const add = (into: UsageAndMs, usage: Usage, ms: number) => Object.assign(into, sum(into, usage), { ms: into.ms + ms });
  try {
    for (let index = 0; index < sends; index++) {
      const body = { from: account.from, recipients: [uniqueEmail()], subject: 'Receipt', content: '<p>Thanks</p>' };
      const request = await metered(meter, () => expectCall(server.url, 200, 'POST', '/api/email/send', { key: account.liveKeys[0]!, body }));
      add(totals.request, request.usage, request.ms);
      // What the send wrote reaches the stream; the fan-out is handed all of it, as its event source hands it, and picks the events.
      const records = (await reader.read()).filter((record) => String(record.dynamodb?.Keys?.pk?.S).startsWith(account.accountId));
      totals.events += records.filter((record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.entity?.S === 'event').length;
      const fanOut = await metered(meter, () => invokeWithRecords('events/fan-out', handler as never, records));
      add(totals.fanOut, fanOut.usage, fanOut.ms);
      const delivered = await deliverQueued(meter);
      totals.deliveries += delivered.deliveries;
      add(totals.delivery, delivered.usage, delivered.ms);
    }
  } finally {
    reader.close();
    await server.close();
    await receiver.stop();
  }
  return {
    sends,
    events: totals.events / sends,
    deliveries: totals.deliveries / sends,
    request: withMs(totals.request, totals.request.ms, sends),
    fanOut: withMs(totals.fanOut, totals.fanOut.ms, sends),
    delivery: withMs(totals.delivery, totals.delivery.ms, sends),
  };
}

/**
 * `events` events through the pipeline to `options.endpoints` new
 * receivers, the first answering after `slowMs`; each receiver's latencies.
 */
async function deliverLoad(
  accountId: string,
  events: number,
  options: WebhookBenchOptions,
  slowMs: number,
  label: string,
  progress: (message: string) => void,
) {
  const { recordEvent } = await import('#shared/events/service.ts');
  const { createWebhook, updateWebhook, listWebhooks } = await import('#shared/webhooks/service.ts');
  const { startEventFanOut } = await import('#dev/local/event-fan-out.ts');
  const { startWebhookWorker } = await import('#dev/local/webhook-worker.ts');
  // The previous phase's endpoints receive nothing more.
  for (const endpoint of await listWebhooks(accountId)) await updateWebhook(accountId, endpoint.id, { enabled: false }, Date.now());
  const receivers = await Promise.all(Array.from({ length: options.endpoints }, (_, index) => startLatencyReceiver(index === 0 ? slowMs : 0)));
  const [slow, ...fast] = receivers;
  for (const receiver of receivers) await createWebhook(accountId, { url: receiver.url, events: [LOAD_TYPE] }, Date.now());
  progress(
    `webhooks (${label}): ${events} events to ${options.endpoints} endpoints, one answering in ${slowMs} ms, ${options.workers} workers (${options.slowWorkers} on the slow lane)`,
  );
  const pollers = [await startEventFanOut(), await startWebhookWorker({ concurrency: options.workers, slowConcurrency: options.slowWorkers })];
  const started = performance.now();
  try {
    for (let index = 0; index < events; index++) {
      await recordEvent(accountId, { type: LOAD_TYPE, data: { emailId: `eml_${index}` }, sourceKey: `bench:${label}:${index}` }, Date.now());
    }
    const deadline = Date.now() + 10 * 60_000;
    while (receivers.some((receiver) => receiver.seen.length < events) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await Promise.all(pollers.map((poller) => poller.stop()));
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  }
  return { fast: latencies(fast.flatMap((receiver) => receiver.seen)), slow: latencies(slow!.seen), totalSeconds: (performance.now() - started) / 1000 };
}

/**
 * The tenant who tries (WebhookBenchOptions `hostile`), on an account of its
 * own: endpoints at a receiver that never answers, a new URL for each every
 * `urlEveryMs`, a test event every `testEveryMs`; answers what it did once
 * stopped (its endpoints then disabled, so what it left queued is dropped
 * unattempted).
 */
async function startHostileTenant(options: HostileTenantOptions) {
  const { createWebhook, sendTestEvent, updateWebhook } = await import('#shared/webhooks/service.ts');
  const { RateLimitError } = await import('#shared/platform/errors.ts');
  const { createBenchAccount } = await import('./fixtures.ts');
  const { accountId } = await createBenchAccount();
  const hanging = await startLatencyReceiver(Number.POSITIVE_INFINITY);
  const ids: string[] = [];
  for (let index = 0; index < options.endpoints; index++) {
    ids.push((await createWebhook(accountId, { url: hanging.url, events: ['form.submitted'] }, Date.now())).id);
  }
  const figures = { urlChanges: 0, testEvents: { accepted: 0, refused: 0 } };
  let running = true;
  const every = async (ms: number, step: (round: number) => Promise<void>) => {
    for (let round = 0; running; round++) {
      const started = Date.now();
      await step(round);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - (Date.now() - started))));
    }
  };
  const loops = [
    every(options.urlEveryMs, async (round) => {
      for (const id of ids) await updateWebhook(accountId, id, { url: `${hanging.url}?v=${round + 1}` }, Date.now());
      figures.urlChanges += ids.length;
    }),
    every(options.testEveryMs, async (round) => {
      try {
        await sendTestEvent(accountId, ids[round % ids.length]!, Date.now());
        figures.testEvents.accepted += 1;
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        figures.testEvents.refused += 1;
      }
    }),
  ];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      for (const id of ids) await updateWebhook(accountId, id, { enabled: false }, Date.now());
      await hanging.stop();
      return { ...figures, hostileAttempts: hanging.requests() };
    },
  };
}

/**
 * The hostile case's load: `hostile.events` events, one every
 * `eventEveryMs`, to `options.endpoints` fast receivers of a tenant of their
 * own, after an onset of `onsetMs` with events at the same pace; beside the
 * hostile tenant when `attacked`, from the onset's start.
 */
async function deliverPaced(options: WebhookBenchOptions, attacked: boolean, progress: (message: string) => void) {
  const { recordEvent } = await import('#shared/events/service.ts');
  const { createWebhook } = await import('#shared/webhooks/service.ts');
  const { startEventFanOut } = await import('#dev/local/event-fan-out.ts');
  const { startWebhookWorker } = await import('#dev/local/webhook-worker.ts');
  const { createBenchAccount } = await import('./fixtures.ts');
  const { hostile } = options;
  const { accountId } = await createBenchAccount();
  const receivers = await Promise.all(Array.from({ length: options.endpoints }, () => startLatencyReceiver(0)));
  for (const receiver of receivers) await createWebhook(accountId, { url: receiver.url, events: [LOAD_TYPE] }, Date.now());
  const onsetEvents = attacked ? Math.ceil(hostile.onsetMs / hostile.eventEveryMs) : 0;
  const events = onsetEvents + hostile.events;
  progress(
    `webhooks (${attacked ? 'beside a hostile tenant' : 'paced, alone'}): ${events} events, one every ${hostile.eventEveryMs} ms, to ${options.endpoints} fast endpoints${
      attacked
        ? `; the other tenant's ${hostile.endpoints} endpoints never answer, a new URL every ${hostile.urlEveryMs} ms, a test event every ${hostile.testEveryMs} ms`
        : ''
    }`,
  );
  const pollers = [await startEventFanOut(), await startWebhookWorker({ concurrency: options.workers, slowConcurrency: options.slowWorkers })];
  const attack = attacked ? await startHostileTenant(hostile) : undefined;
  const started = Date.now();
  let attackFigures: Awaited<ReturnType<NonNullable<typeof attack>['stop']>> | undefined;
  try {
    for (let index = 0; index < events; index++) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + index * hostile.eventEveryMs - Date.now())));
      await recordEvent(accountId, { type: LOAD_TYPE, data: { emailId: `eml_${index}` }, sourceKey: `bench:paced:${attacked}:${index}` }, Date.now());
    }
    const deadline = Date.now() + 5 * 60_000;
    while (receivers.some((receiver) => receiver.seen.length < events) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    attackFigures = await attack?.stop();
    await Promise.all(pollers.map((poller) => poller.stop()));
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  }
  const measured = (emailId: string) => Number(emailId.slice('eml_'.length)) >= onsetEvents;
  const split = (after: boolean) =>
    latencies(receivers.flatMap((receiver) => receiver.seen.filter((_latency, index) => measured(receiver.emailIds[index]!) === after)));
  return { fast: split(true), onset: split(false), attack: attackFigures };
}

/**
 * `node --import tsx bench/webhooks.ts`: this section alone, on a stack of
 * its own, printed as bench/results/latest.md shows it (plus the JSON).
 */
async function main(): Promise<void> {
  const { startBenchStack } = await import('./stack.ts');
  const stack = await startBenchStack();
  const quiet = console.log.bind(console);
  // The handlers write an access line per request.
  console.log = () => undefined;
  try {
    const { meterDynamoDb } = await import('./dynamo-meter.ts');
    const { createBenchAccount } = await import('./fixtures.ts');
    const { webhookSection } = await import('./report.ts');
    const results = await measureWebhooks(meterDynamoDb(), (await createBenchAccount()).accountId, WEBHOOK_BENCH, (message) =>
      process.stderr.write(`bench: ${message}\n`),
    );
    quiet(webhookSection(results).join('\n'));
    quiet(JSON.stringify(results, null, 2));
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
