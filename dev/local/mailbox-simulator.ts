/**
 * LOCAL ONLY (npm start and its tests): what SES's mailbox simulator does in
 * AWS. A send to success@, bounce@ or complaint@simulator.amazonses.com
 * (a `+label` is allowed, as in SES) gets, a moment later, the events SES
 * would publish through the configuration set, put on the local feedback
 * queue as the EventBridge rule puts them (./feedback-worker.ts), for the
 * feedback worker to apply, retry and dead-letter as in AWS. A bounce or a
 * complaint also puts the address on
 * the local account-level suppression list (./suppression-list.ts), as SES
 * does whether or not its event arrives. The SES emulator itself knows
 * nothing of this: the simulator watches the SES client's SendEmail calls.
 */
import type { SendEmailCommandInput, SendEmailCommandOutput } from '@aws-sdk/client-sesv2';
import { getEmailRecord } from '#shared/messages/store.ts';
import { ACCOUNT_TAG, BROADCAST_TAG, EMAIL_TAG, TRACKING_OPTIONS_TAG, TRACKING_TAG } from '#shared/sending/message-tags.ts';
import { ses } from '#shared/sending/transport.ts';
import { config } from '#shared/platform/config.ts';
import { log } from '#shared/platform/log.ts';
import { type FeedbackQueues, publishSesEvent } from './feedback-worker.ts';
import { outsideInvocation } from './invocation.ts';
import { sesEventBridgeEvent, type SentMessage, type SesEventType } from './ses-events.ts';

export const SIMULATOR_DOMAIN = 'simulator.amazonses.com';

/** What SES publishes for each simulator mailbox: a complaint comes after the message was delivered. */
const OUTCOMES: Record<string, readonly SesEventType[]> = {
  success: ['Delivery'],
  bounce: ['Bounce'],
  complaint: ['Delivery', 'Complaint'],
};

/** SES publishes a moment after accepting a message. */
const DEFAULT_DELAY_MS = 500;
/**
 * The send path stores the email records after SES accepted the messages; in
 * AWS the events take longer than that, so locally they wait for the record.
 */
const RECORD_WAIT_MS = 10_000;
const RECORD_POLL_MS = 50;

async function recordStored(message: SentMessage): Promise<void> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  while (!(await getEmailRecord(message.accountId, message.emailId)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, RECORD_POLL_MS));
  }
}

const MIDDLEWARE_NAME = 'localMailboxSimulator';

/** `bounce+smoke@simulator.amazonses.com` → `bounce`; undefined for any other address. */
export function simulatorMailbox(address: string): string | undefined {
  const match = /^([a-z]+)(?:\+[^@]*)?@(.+)$/i.exec(address.trim());
  return match && match[2]!.toLowerCase() === SIMULATOR_DOMAIN && match[1]!.toLowerCase() in OUTCOMES ? match[1]!.toLowerCase() : undefined;
}

function messagesOf(input: SendEmailCommandInput, output: SendEmailCommandOutput): SentMessage[] {
  const tag = (name: string) => input.EmailTags?.find((one) => one.Name === name)?.Value;
  const [accountId, emailId, trackingId, tracking, broadcastId] = [
    tag(ACCOUNT_TAG),
    tag(EMAIL_TAG),
    tag(TRACKING_TAG),
    tag(TRACKING_OPTIONS_TAG),
    tag(BROADCAST_TAG),
  ];
  if (!accountId || !emailId || !output.MessageId) return [];
  const headers = { from: input.FromEmailAddress, subject: input.Content?.Simple?.Subject?.Data };
  return (input.Destination?.ToAddresses ?? [])
    .filter((to) => simulatorMailbox(to))
    .map((recipient) => ({
      accountId,
      emailId,
      messageId: output.MessageId!,
      recipient,
      ...(trackingId ? { trackingId } : {}),
      ...(tracking ? { tracking } : {}),
      ...(broadcastId ? { broadcastId } : {}),
      ...headers,
    }));
}

export interface MailboxSimulator {
  stop(): Promise<void>;
}

/** SES's own record of a hard bounce or complaint, with the message that caused it (a plain request: SES writes it, not a Postlane function). */
async function suppressLocally(message: SentMessage, reason: 'BOUNCE' | 'COMPLAINT'): Promise<void> {
  const response = await fetch(`${config.SES_ENDPOINT}/v2/email/suppression/addresses`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ EmailAddress: message.recipient, Reason: reason, Attributes: { MessageId: message.messageId } }),
  });
  if (!response.ok) throw new Error(`local suppression list answered ${response.status}`);
}

export interface MailboxSimulatorOptions {
  /**
   * The feedback queue and its dead-letter queue the events go to, as the stack's rule sends them. None: the
   * events are lost on the way (as EventBridge may lose them), while the suppression list still gets the address.
   */
  queues?: FeedbackQueues;
  delayMs?: number;
}

export function startMailboxSimulator(options: MailboxSimulatorOptions = {}): MailboxSimulator {
  const pending = new Set<Promise<void>>();
  const publish = async (message: SentMessage) => {
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? DEFAULT_DELAY_MS));
    await recordStored(message);
    const outcomes = OUTCOMES[simulatorMailbox(message.recipient)!]!;
    if (outcomes.includes('Complaint')) await suppressLocally(message, 'COMPLAINT');
    else if (outcomes.includes('Bounce')) await suppressLocally(message, 'BOUNCE');
    const { queues } = options;
    if (!queues) return;
    for (const type of outcomes) await publishSesEvent(queues, sesEventBridgeEvent(type, message));
  };
  ses.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'SendEmailCommand') {
        for (const message of messagesOf(args.input as SendEmailCommandInput, result.output as SendEmailCommandOutput)) {
          // SES's and EventBridge's work, after the send: none of it is the sending function's (its dead-lettering least of all).
          const published = outsideInvocation(() => publish(message)).catch((error: unknown) => log.error('local mailbox simulator failed', { error }));
          pending.add(published);
          void published.finally(() => pending.delete(published));
        }
      }
      return result;
    },
    { step: 'initialize', name: MIDDLEWARE_NAME },
  );
  return {
    async stop() {
      ses.middlewareStack.remove(MIDDLEWARE_NAME);
      await Promise.all(pending);
    },
  };
}
