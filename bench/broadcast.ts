/**
 * A broadcast to 100,000 contacts (issue 17 item 7): the audience seeded as
 * bench/scale.ts seeds it, with some contacts unsubscribed and some addresses
 * on the suppression list; the broadcast created and sent through the API;
 * the deployed worker handler run by several pollers over the local queue
 * stand-in, as Lambda runs several on the queue's event source. SES is a
 * stand-in attached to the handlers' own SES client (like the tests' fault
 * seams, so production code carries none of it) that accepts a fixed number
 * of messages per second and answers the rest as SES does when its maximum
 * send rate is exceeded. Reports the rate reached as a ratio of that rate,
 * the time to the first message, and per message the workers' handler time
 * and DynamoDB calls and units (events included), and the all-in AWS cost
 * per 1,000 messages.
 */
import { TooManyRequestsException } from '@aws-sdk/client-sesv2';
import type { DynamoMeter } from './dynamo-meter.ts';
import type { BenchAccount } from './fixtures.ts';
import { SES_PER_1000 } from './anchors.ts';
import { PRICES, type Prices } from './cost.ts';

export interface BroadcastBenchOptions {
  contacts: number;
  /** Every n-th contact is unsubscribed (planned out), every m-th subscribed address is on the suppression list. */
  unsubscribedEvery: number;
  suppressedEvery: number;
  /** Messages per second the SES stand-in accepts (SES_MAX_SEND_RATE, as the deployment reads SES's MaxSendRate). */
  sesRate: number;
  /** How long the stand-in takes to answer a SendEmail. */
  sesLatencyMs: number;
  /** Worker pollers at once (Lambda's concurrent invocations on the queue). */
  workers: number;
}

/**
 * 100 a second: 100,000 messages in about 17 minutes at the full rate. On
 * the 2-core development machine the engine, DynamoDB Local and the stand-in
 * share the CPU, and the engine reached 40 to 70 a second under other load
 * (docs/broadcasts.md, "Costs"): the rate is set where a quiet machine can
 * keep up, so that the ratio measures the engine, not the machine's load.
 * SES's own default out of the sandbox is 14 a second, raised on request.
 */
export const DEFAULT_SES_RATE = 100;

export const BROADCAST_BENCH: BroadcastBenchOptions = {
  contacts: 100_000,
  unsubscribedEvery: 500,
  suppressedEvery: 1_000,
  // The name the pacing (issue 17 item 3) reads locally for the deployment's rate, so both see the stand-in's.
  sesRate: Number(process.env.SES_MAX_SEND_RATE ?? DEFAULT_SES_RATE),
  // In-region SES answers in tens of milliseconds (bench/anchors.ts has 127 ms from outside AWS as an upper bound).
  sesLatencyMs: 30,
  workers: 4,
};

export interface PerMessage {
  roundTrips: number;
  readUnits: number;
  /** Every write unit, the indexes' included (what AWS bills). */
  writeUnits: number;
  /** Of them, the table's own items': the unit of the issue's budget (docs/broadcasts.md, "Costs"). */
  tableWriteUnits: number;
  /** Handler time of the workers, summed over invocations. */
  lambdaMs: number;
  sqsRequests: number;
}

export interface BroadcastCost {
  lambda: number;
  dynamo: number;
  sqs: number;
  ses: number;
  total: number;
}

export interface BroadcastBenchResults {
  options: BroadcastBenchOptions;
  counts: { recipients: number; sent: number; suppressed: number; failed: number };
  /** Messages the stand-in accepted, and of them to an address it had accepted one for already (must be 0). */
  accepted: number;
  duplicates: number;
  /** SendEmail calls the stand-in answered with throttling. */
  throttled: number;
  /** From the send request to the first message SES accepted. */
  firstMessageMs: number;
  /** From the send request to the broadcast's `sent`. */
  totalSeconds: number;
  /** Accepted messages per second from the first to the last, and as a ratio of the stand-in's rate. */
  messagesPerSecond: number;
  rateRatio: number;
  invocations: number;
  perMessage: PerMessage;
  memoryMb: number;
  costPer1000: BroadcastCost;
}

/** The SES stand-in: what it accepted, and how to take it off the client. */
interface SesStandIn {
  accepted: string[];
  throttled: number;
  firstAt: number | undefined;
  lastAt: number | undefined;
  detach(): void;
}

const STAND_IN = 'postlaneBenchSesStandIn';

/**
 * SES's maximum send rate as SES describes it: "the maximum number of emails
 * that Amazon SES can accept from your account each second. You can exceed
 * this quota for short bursts, but not for sustained periods of time"
 * (docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas.html). A token
 * bucket refilled at `rate` a second: over any span it accepts at most
 * `rate` a second plus the burst, so a sustained excess is refused however
 * it is spread, while a sender at the rate whose messages jitter across
 * calendar seconds is not (counting whole calendar seconds refused it
 * whenever jitter put rate + 1 into one). The burst is one second's worth:
 * the most a sender keeping the rate on average can be ahead of it when a
 * late message of one second leaves in the next.
 */
export function sesRateLimit(rate: number, burst = rate): (now: number) => boolean {
  let tokens = burst;
  let at = Number.NEGATIVE_INFINITY;
  return (now) => {
    tokens = Math.min(burst, tokens + ((now - at) * rate) / 1000);
    at = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

/**
 * Answers every SendEmail of the handlers' SES client without the network:
 * accepted within SES's maximum send rate (sesRateLimit), the rest refused
 * with SES's own throttling error. It sits inside the SDK's retry step, so
 * the SDK retries a refusal as it retries real SES's.
 */
async function attachSesStandIn(rate: number, latencyMs: number): Promise<SesStandIn> {
  const { ses } = await import('#shared/sending/transport.ts');
  const accepts = sesRateLimit(rate);
  let sequence = 0;
  const standIn: SesStandIn = {
    accepted: [],
    throttled: 0,
    firstAt: undefined,
    lastAt: undefined,
    detach: () => ses.middlewareStack.remove(STAND_IN),
  };
  ses.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'SendEmailCommand') return next(args);
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const now = Date.now();
      if (!accepts(now)) {
        standIn.throttled++;
        throw new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: { httpStatusCode: 429 } });
      }
      standIn.firstAt ??= now;
      standIn.lastAt = now;
      standIn.accepted.push((args.input as { Destination: { ToAddresses: string[] } }).Destination.ToAddresses[0]!);
      return { output: { MessageId: `bench-${++sequence}`, $metadata: { httpStatusCode: 200 } }, response: {} } as never;
    },
    { step: 'finalizeRequest', priority: 'low', name: STAND_IN },
  );
  return standIn;
}

/** Counts the SQS requests of the handlers' client (the engine's sends and the pollers' receives and deletes). */
async function countSqsRequests(): Promise<{ count(): number; detach(): void }> {
  const { sqs } = await import('#shared/sending/retry-queue.ts');
  let requests = 0;
  const name = 'postlaneBenchSqsCounter';
  sqs.middlewareStack.add(
    (next) => (args) => {
      requests++;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { count: () => requests, detach: () => sqs.middlewareStack.remove(name) };
}

/** Per 1,000 messages: the workers' Lambda time and invocations, DynamoDB units, SQS requests, and SES. */
export function broadcastCostPer1000(perMessage: PerMessage, invocationsPerMessage: number, memoryMb: number, prices: Prices = PRICES): BroadcastCost {
  const lambda =
    (perMessage.lambdaMs / 1000) * (memoryMb / 1024) * prices.lambdaPerGbSecond * 1000 + (invocationsPerMessage * 1000 * prices.lambdaPerMillionRequests) / 1e6;
  const dynamo = ((perMessage.readUnits * prices.dynamoPerMillionReadUnits + perMessage.writeUnits * prices.dynamoPerMillionWriteUnits) * 1000) / 1e6;
  const sqs = (perMessage.sqsRequests * 1000 * prices.sqsPerMillionRequests) / 1e6;
  return { lambda, dynamo, sqs, ses: SES_PER_1000, total: lambda + dynamo + sqs + SES_PER_1000 };
}

/** Runs the broadcast against the bench stack (BROADCAST_QUEUE_URL set by bench/stack.ts), through the API at `api`. */
export async function measureBroadcast(
  api: string,
  meter: DynamoMeter,
  account: BenchAccount,
  options: BroadcastBenchOptions = BROADCAST_BENCH,
  progress: (message: string) => void = () => undefined,
): Promise<BroadcastBenchResults> {
  const { seedContacts } = await import('./scale.ts');
  const { expectCall } = await import('./stack.ts');
  const { putSuppression } = await import('#shared/sending/suppression-store.ts');
  const { startBroadcastWorker } = await import('#dev/local/broadcast-worker.ts');
  const { MEMORY_MB } = await import('../lib/endpoint-function.ts');
  const key = account.liveKeys[0]!;

  const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: 'Broadcast bench' } })).data.id as string;
  const seeding = performance.now();
  const contacts = await seedContacts(account.accountId, audienceId, options.contacts, new Date(), (index) =>
    index % options.unsubscribedEvery === options.unsubscribedEvery - 1 ? 'unsubscribed' : 'subscribed',
  );
  const subscribed = contacts.filter((contact) => contact.status === 'subscribed');
  const suppressed = subscribed.filter((_, index) => index % options.suppressedEvery === options.suppressedEvery - 1);
  await Promise.all(suppressed.map((contact) => putSuppression(account.accountId, contact.email, 'bounced', new Date())));
  progress(`broadcast: seeded ${contacts.length.toLocaleString('en-US')} contacts in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const broadcast = (
    await expectCall(api, 201, 'POST', '/api/broadcasts', {
      key,
      body: { audienceId, from: account.from, subject: 'News for {{firstName}}', content: '<p>Hello {{firstName}}, here is what is new this month.</p>' },
    })
  ).data;
  const standIn = await attachSesStandIn(options.sesRate, options.sesLatencyMs);
  const sqsRequests = await countSqsRequests();
  let handlerMs = 0;
  let invocations = 0;
  const workers = await startBroadcastWorker({
    concurrency: options.workers,
    wrap: (handler) => async (event, context) => {
      const started = performance.now();
      invocations++;
      try {
        return await handler(event, context);
      } finally {
        handlerMs += performance.now() - started;
      }
    },
  });
  progress(
    `broadcast: sending to ${subscribed.length.toLocaleString('en-US')} subscribed contacts, SES stand-in at ${options.sesRate}/s, ${options.workers} workers`,
  );
  try {
    meter.reset();
    const sentAt = Date.now();
    await expectCall(api, 202, 'POST', `/api/broadcasts/${broadcast.id}/send`, { key, body: {} });
    let current = broadcast;
    let reported = 0;
    while (current.status !== 'sent') {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      current = (await expectCall(api, 200, 'GET', `/api/broadcasts/${broadcast.id}`, { key })).data;
      if (!['sending', 'sent'].includes(current.status)) throw new Error(`broadcast ${current.status}: ${JSON.stringify(current)}`);
      if (standIn.accepted.length - reported >= 10_000) {
        reported = standIn.accepted.length;
        progress(`broadcast: ${reported.toLocaleString('en-US')} sent, ${standIn.throttled} throttled`);
      }
    }
    const totalSeconds = (Date.now() - sentAt) / 1000;
    const usage = meter.usage();
    const accepted = standIn.accepted.length;
    const per = (value: number) => value / Math.max(1, accepted);
    const perMessage = {
      roundTrips: per(usage.roundTrips),
      readUnits: per(usage.readUnits),
      writeUnits: per(usage.writeUnits),
      tableWriteUnits: per(usage.tableWriteUnits),
      lambdaMs: per(handlerMs),
      sqsRequests: per(sqsRequests.count()),
    };
    const spanSeconds = ((standIn.lastAt ?? 0) - (standIn.firstAt ?? 0)) / 1000;
    const messagesPerSecond = spanSeconds > 0 ? (accepted - 1) / spanSeconds : 0;
    const { recipients, sent, suppressed: skipped, failed } = current.counts;
    return {
      options,
      counts: { recipients, sent, suppressed: skipped, failed },
      accepted,
      duplicates: accepted - new Set(standIn.accepted).size,
      throttled: standIn.throttled,
      firstMessageMs: (standIn.firstAt ?? Number.NaN) - sentAt,
      totalSeconds,
      messagesPerSecond,
      rateRatio: messagesPerSecond / options.sesRate,
      invocations,
      perMessage,
      memoryMb: MEMORY_MB,
      costPer1000: broadcastCostPer1000(perMessage, per(invocations), MEMORY_MB),
    };
  } finally {
    await workers.stop();
    standIn.detach();
    sqsRequests.detach();
  }
}
