/**
 * The deployment's own mail to people (sign-in codes, invitations to a team):
 * from SERVICE_MAIL_FROM, to one address, on behalf of no account, so it has
 * no record, charges no quota and is always a real send, whatever key or
 * session asked for it. It leaves through the retry queue and its worker,
 * with the send path's transport (shared/sending/retry.ts): the request that
 * asks for it then makes the same calls whether the mail is to go out or
 * not, since a message with `send: false` is queued all the same and the
 * worker drops it. That is what keeps POST /api/session/code from telling
 * members from strangers by its calls or its time (docs/security.md, "Signing in").
 */
import * as v from 'valibot';
import { config } from '#shared/platform/config.ts';
import { log } from '#shared/platform/log.ts';
import { parseMailbox, type Mailbox } from './address.ts';
import { retryQueue, type RetryQueue } from './retry-queue.ts';
import type { OutgoingEmail } from './transport.ts';

export interface ServiceEmail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** The deployment's sender, when configured (`postlane:mailFrom`; `npm start` sets one). */
export function serviceSender(): Mailbox | undefined {
  return config.SERVICE_MAIL_FROM === undefined ? undefined : parseMailbox(config.SERVICE_MAIL_FROM);
}

const Body = v.object({
  version: v.literal(1),
  service: v.literal(true),
  send: v.boolean(),
  from: v.object({ address: v.string(), name: v.optional(v.string()) }),
  to: v.string(),
  subject: v.string(),
  html: v.string(),
  text: v.string(),
});

/** A service email as the retry queue carries it. */
export type QueuedServiceEmail = v.InferOutput<typeof Body>;

/** The service email a queue body holds, or undefined when it holds another kind of message. */
export function serviceEmailOf(body: string): QueuedServiceEmail | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(Body, json);
  return parsed.success ? parsed.output : undefined;
}

/** What the transport sends for it: one recipient, no cc, bcc, reply address or tags of an account. */
export function outgoingServiceEmail(queued: QueuedServiceEmail): OutgoingEmail {
  const from = { address: queued.from.address, ...(queued.from.name === undefined ? {} : { name: queued.from.name }) };
  return { from, to: [queued.to], cc: [], bcc: [], replyTo: [], subject: queued.subject, html: queued.html, text: queued.text, attachments: [] };
}

/**
 * Queues `email` for the worker to send now, or (`send: false`) to drop: the
 * same call either way. Without a sender or a queue it is logged and not
 * sent, also the same either way.
 */
export async function queueServiceEmail(email: ServiceEmail, options: { send: boolean }, queue: RetryQueue | undefined = retryQueue): Promise<void> {
  const from = serviceSender();
  if (!from || !queue) {
    log.error('service email not queued: SERVICE_MAIL_FROM or RETRY_QUEUE_URL is not set', { sender: from !== undefined, queue: queue !== undefined });
    return;
  }
  const body: QueuedServiceEmail = { version: 1, service: true, send: options.send, from, ...email };
  await queue.enqueue(JSON.stringify(body), 0);
}
