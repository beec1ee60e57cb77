/**
 * The event fan-out locally: the handler the stack deploys
 * (functions/events/fan-out.ts), fed by the stream poller over DynamoDB
 * Local's stream as the table's event source mapping feeds it in AWS.
 * Imports shared/platform/config.ts, so load it only once the environment names the
 * local endpoints and WEBHOOK_QUEUE_URL.
 */
import { handler } from '#functions/events/fan-out.ts';
import { config } from '#shared/platform/config.ts';
import { FAN_OUT_BATCH_SIZE } from '#shared/events/stream-records.ts';
import { StreamReader, startStreamPoller, type StreamHandler, type StreamPoller } from './stream-poller.ts';

export async function startEventFanOut(endpoint: string | undefined = config.DYNAMODB_ENDPOINT): Promise<StreamPoller> {
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set');
  const reader = await StreamReader.open(endpoint, config.TABLE_NAME, config.AWS_REGION);
  return startStreamPoller({ reader, name: 'events/fan-out', handler: handler as StreamHandler, batchSize: FAN_OUT_BATCH_SIZE });
}
