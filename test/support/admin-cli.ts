/** The admin CLI as a subprocess, and throwaway queues on the local SQS stand-in for its dead-letter commands. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqs } from '#shared/sending/retry-queue.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run --silent admin -- ...args` against the test table and the local SQS stand-in (setup.ts put both in the environment). */
export function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/admin.mjs', ...args], { cwd: ROOT, env: process.env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A new queue of the test's own, as a dead-letter queue stands: nothing reads it but the admin command. */
export async function freshQueue(name: string): Promise<string> {
  return (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-${randomUUID()}` }))).QueueUrl!;
}

/** Messages on the queue, visible or not: received and not yet deleted, or delayed. */
export async function messagesIn(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible) +
    Number(Attributes?.ApproximateNumberOfMessagesDelayed)
  );
}
