/**
 * How long the stack's queues keep a message, in one place: what must outlive
 * a message (a body it points at) is derived from it.
 */
import { Duration } from 'aws-cdk-lib';

/** How long a worker queue keeps a message: SQS's default, stated rather than assumed. */
export const QUEUE_RETENTION = Duration.days(4);

/** How long a dead-letter queue keeps a message: SQS's longest, time for an operator to fix the cause and replay it. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * How long after it was sent a worker queue's message may still be on the
 * queue or its dead-letter queue. SQS counts a message's age from when it was
 * first sent, also once the redrive policy has moved it to the dead-letter
 * queue (standard queues), so it is the longer of the two retentions. What a
 * message points at (a body kept in the attachments bucket) must last as long.
 */
export const MESSAGE_LIFETIME = Duration.seconds(Math.max(QUEUE_RETENTION.toSeconds(), DEAD_LETTER_RETENTION.toSeconds()));
