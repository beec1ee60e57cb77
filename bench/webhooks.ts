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
};

const LOAD_TYPE = 'email.delivered';

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

function latencies(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return { deliveries: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

/** A receiver that notes each delivery's latency from its event's `createdAt`, answering after `delayMs`. */
async function startLatencyReceiver(delayMs: number) {
  const seen: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { type, createdAt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; createdAt: string };
      if (type === LOAD_TYPE) seen.push(Date.now() - Date.parse(createdAt));
      setTimeout(() => response.writeHead(204).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    seen,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
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
  const { sqs } = await import('#shared/email/retry-queue.ts');
  const { config } = await import('#shared/config.ts');
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
  const { recordEvent } = await import('#shared/domain/events.ts');
  const { createWebhook } = await import('#shared/domain/webhooks.ts');
  const { config } = await import('#shared/config.ts');
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
  return { options, recordPerEvent, fanOutPerEvent, fanOutMsPerEvent, perDelivery, perSend, baseline: baseline.fast, ...withSlow };
}

/**
 * `sends` one-recipient sends over the API, on an account of their own with
 * one endpoint subscribed to every event: each send's request, the fan-out
 * of the events it wrote and their deliveries, metered and timed apart.
 */
async function measurePerSend(meter: DynamoMeter, sends: number, progress: (message: string) => void): Promise<PerSendFigures> {
  const { createWebhook } = await import('#shared/domain/webhooks.ts');
  const { config } = await import('#shared/config.ts');
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
  const { recordEvent } = await import('#shared/domain/events.ts');
  const { createWebhook, updateWebhook, listWebhooks } = await import('#shared/domain/webhooks.ts');
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
