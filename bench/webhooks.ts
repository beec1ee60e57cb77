/**
 * Webhooks under load (issue 18): events recorded as the API records them,
 * fanned out by the stream poller and delivered by workers running the
 * deployed handlers (dev/local/event-fan-out.ts, dev/local/webhook-worker.ts)
 * to receivers on this machine, one of them slow. Reports each receiver's
 * latency from the event's creation to its delivery, and what the fan-out
 * costs in DynamoDB per event.
 *
 * Lambda runs as many SQS batches at once as the queue needs; locally
 * WORKERS pollers stand for that concurrency. A slow receiver holds its own
 * message's batch only: the fast receivers' deliveries in that batch are made
 * at once, in parallel, and the other pollers go on.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { DynamoMeter } from './dynamo-meter.ts';

export interface WebhookBenchOptions {
  events: number;
  endpoints: number;
  /** How long the one slow receiver takes to answer. */
  slowMs: number;
  /** Concurrent worker pollers (Lambda's concurrent batches). */
  workers: number;
  /** Events metered through the fan-out on their own, for its cost per event. */
  meteredEvents: number;
}

export interface LatencyFigures {
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
}

export interface WebhookBenchResults {
  options: WebhookBenchOptions;
  /** The fan-out of one event to `endpoints` endpoints: DynamoDB round trips and units, averaged. */
  fanOutPerEvent: { roundTrips: number; readUnits: number; writeUnits: number };
  /** The fan-out function's time per event, in this process (Lambda's billed duration is about this). */
  fanOutMsPerEvent: number;
  /** Recording one event (the request's share): round trips and units. */
  recordPerEvent: { roundTrips: number; readUnits: number; writeUnits: number };
  /** The same load to fast receivers only: what the fast ones get when no receiver is slow. */
  baseline: LatencyFigures;
  fast: LatencyFigures;
  slow: LatencyFigures;
  totalSeconds: number;
}

export const WEBHOOK_BENCH: WebhookBenchOptions = { events: 1_000, endpoints: 5, slowMs: 2_000, workers: 20, meteredEvents: 50 };

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

const scaled = (usage: { roundTrips: number; readUnits: number; writeUnits: number }, count: number) => ({
  roundTrips: usage.roundTrips / count,
  readUnits: usage.readUnits / count,
  writeUnits: usage.writeUnits / count,
});

/** Runs the scenario against the bench stack (WEBHOOK_QUEUE_URL and the table's stream set up by bench/stack.ts). */
export async function measureWebhooks(
  meter: DynamoMeter,
  accountId: string,
  options: WebhookBenchOptions = WEBHOOK_BENCH,
  progress: (message: string) => void = () => undefined,
): Promise<WebhookBenchResults> {
  const { recordEvent } = await import('#shared/domain/events.ts');
  const { createWebhook } = await import('#shared/domain/webhooks.ts');
  const { config } = await import('#shared/config.ts');
  const { StreamReader, invokeWithRecords } = await import('#dev/local/stream-poller.ts');
  const { handler } = await import('#functions/events/fan-out.ts');

  // Endpoints that take no delivery of the load: the metered fan-out queues their messages, never delivered.
  for (let index = 0; index < options.endpoints; index++)
    await createWebhook(accountId, { url: 'http://127.0.0.1:9/metered', events: ['email.sent'] }, Date.now());

  progress(`webhooks: fan-out cost of ${options.meteredEvents} events to ${options.endpoints} endpoints`);
  const reader = await StreamReader.open(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME, config.AWS_REGION);
  meter.reset();
  for (let index = 0; index < options.meteredEvents; index++) {
    await recordEvent(accountId, { type: 'email.sent', data: { emailId: `eml_${index}` }, sourceKey: `bench:metered:${index}` }, Date.now());
  }
  const recordPerEvent = scaled(meter.usage(), options.meteredEvents);
  const records = await reader.read();
  reader.close();
  meter.reset();
  const fanOutStarted = performance.now();
  await invokeWithRecords('events/fan-out', handler as never, records);
  const fanOutMsPerEvent = (performance.now() - fanOutStarted) / records.length;
  const fanOutPerEvent = scaled(meter.usage(), records.length);

  const baseline = await deliverLoad(accountId, options, 0, 'baseline', progress);
  const withSlow = await deliverLoad(accountId, options, options.slowMs, 'load', progress);
  return { options, recordPerEvent, fanOutPerEvent, fanOutMsPerEvent, baseline: baseline.fast, ...withSlow };
}

/**
 * `options.events` events through the pipeline to `options.endpoints` new
 * receivers, the first answering after `slowMs`; each receiver's latencies.
 */
async function deliverLoad(accountId: string, options: WebhookBenchOptions, slowMs: number, label: string, progress: (message: string) => void) {
  const { recordEvent } = await import('#shared/domain/events.ts');
  const { createWebhook, updateWebhook, listWebhooks } = await import('#shared/domain/webhooks.ts');
  const { startEventFanOut } = await import('#dev/local/event-fan-out.ts');
  const { startWebhookWorker } = await import('#dev/local/webhook-worker.ts');
  // The previous phase's endpoints receive nothing more.
  for (const endpoint of await listWebhooks(accountId)) await updateWebhook(accountId, endpoint.id, { enabled: false }, Date.now());
  const receivers = await Promise.all(Array.from({ length: options.endpoints }, (_, index) => startLatencyReceiver(index === 0 ? slowMs : 0)));
  const [slow, ...fast] = receivers;
  for (const receiver of receivers) await createWebhook(accountId, { url: receiver.url, events: [LOAD_TYPE] }, Date.now());
  progress(`webhooks (${label}): ${options.events} events to ${options.endpoints} endpoints, one answering in ${slowMs} ms, ${options.workers} workers`);
  const pollers = [await startEventFanOut(), await startWebhookWorker(undefined, options.workers)];
  const started = performance.now();
  try {
    for (let index = 0; index < options.events; index++) {
      await recordEvent(accountId, { type: LOAD_TYPE, data: { emailId: `eml_${index}` }, sourceKey: `bench:${label}:${index}` }, Date.now());
    }
    const deadline = Date.now() + 10 * 60_000;
    while (receivers.some((receiver) => receiver.seen.length < options.events) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
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
