/**
 * What one test file leaves behind for the next file of its worker when the
 * worker shares its modules between files (the `shared` project of
 * vitest.config.ts): the SDK clients, the queues and the scheduler of
 * test/support/setup.ts outlive the file. Setup calls `shareWorker` once per
 * process and `endFile` after each file.
 */
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { MiddlewareStack } from '@smithy/types';
import { localScheduler } from '#dev/local/scheduler.ts';
import { afterAll, beforeAll } from 'vitest';
import { config, readConfig, type Config } from '#shared/platform/config.ts';
import { dynamo } from '#shared/platform/dynamodb/client.ts';
import { scheduler } from '#shared/broadcasts/scheduler-client.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { ses } from '#shared/sending/transport.ts';
import { recordAwsCalls } from './aws-calls.ts';

const stacks = (): MiddlewareStack<any, any>[] => [dynamo.middlewareStack, ses.middlewareStack, sqs.middlewareStack, scheduler.middlewareStack];

/** `loggerMiddleware - initialize`, `httpSigningMiddleware (a.k.a. …) - finalizeRequest` → the name `remove` takes. */
const namesOf = (stack: MiddlewareStack<any, any>) => stack.identify().map((entry) => entry.replace(/ (\(a\.k\.a\. |- ).*$/, ''));

/** Each client's middleware before any test file ran. */
let pristine: string[][] = [];

/** Makes the clients, as the first test file would, and notes their middleware. */
export async function shareWorker(): Promise<void> {
  await recordAwsCalls();
  pristine = stacks().map(namesOf);
}

/**
 * Takes off the middleware the file attached to the shared clients (a meter,
 * a fault hook, a recorder it did not detach), deletes the schedules it left
 * and empties the worker's queues, so the next file starts as the first did.
 */
export async function endFile(): Promise<void> {
  if (pristine.length === 0)
    throw new Error('test/support/worker.ts was loaded again: a file of the shared project reset the modules (vitest.config.ts isolates those)');
  stacks().forEach((stack, index) => {
    for (const name of namesOf(stack)) if (!pristine[index]?.includes(name)) stack.remove(name);
  });
  const { endpoint, schedules } = localScheduler();
  for (const { name } of schedules()) await fetch(`${endpoint}/schedules/${encodeURIComponent(name)}`, { method: 'DELETE' });
  const queues = [config.RETRY_QUEUE_URL, config.WEBHOOK_QUEUE_URL, config.WEBHOOK_SLOW_QUEUE_URL, config.BROADCAST_QUEUE_URL, config.EXPORT_QUEUE_URL];
  for (const url of [...queues, `${config.RETRY_QUEUE_URL}-dlq`, `${config.BROADCAST_QUEUE_URL}-dlq`, `${config.EXPORT_QUEUE_URL}-dlq`]) {
    await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
  }
}

/**
 * Settings of one file's own, in a worker that shares its modules between
 * files: each variable set in the environment (the admin CLI and the other
 * children the file starts inherit it) and in the loaded configuration, which
 * the code reads when it acts, from before the file's first test until after
 * its last. The worker's other files keep the settings they started with.
 */
export function configureFile(variables: Partial<Record<keyof Config, string>>): void {
  const names = Object.keys(variables) as (keyof Config)[];
  const before = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  const reread = () => {
    const fresh = readConfig();
    for (const name of names) Object.assign(config, { [name]: fresh[name] });
  };
  beforeAll(() => {
    Object.assign(process.env, variables);
    reread();
  });
  afterAll(() => {
    for (const name of names) {
      if (before[name] === undefined) delete process.env[name];
      else process.env[name] = before[name];
    }
    reread();
  });
}
