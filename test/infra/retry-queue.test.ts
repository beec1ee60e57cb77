import { describe, expect, it } from 'vitest';
import { configurationSetsOf } from '#shared/sending/tracking.ts';
import { MAX_QUEUED_MESSAGE_BYTES, MAX_RECEIVES, QUEUED_MESSAGES_PREFIX, WORKER_BATCH_SIZE } from '#shared/sending/retry-policy.ts';
import { attachmentObjectKey } from '#shared/attachments/store.ts';
import { queuedMessageKey } from '#shared/sending/queued-message-store.ts';
import { newId } from '#shared/platform/ids.ts';
import { QUEUED_BODY_DAYS, UPLOAD_KEYS_PREFIX } from '../../lib/attachments-bucket.ts';
import { ROUTES } from '#functions/routes.ts';
import { RETRY_WORKER } from '../../lib/retry-queue.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy, expectWorkerGrants } from './worker-queue.ts';
import { ofType, pair, postlaneFunctions, referencedId, resourcesOf, synthesize, tablePairs } from './template.ts';

const { stacks, settings } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s retry queue', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const queueId = stack.resolve(stack.retryQueue.queue.queueArn)['Fn::GetAtt'][0] as string;
  const deadLetterId = stack.resolve(stack.retryQueue.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
  const workerId = ofType(resources, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === `Postlane functions/${RETRY_WORKER.handler}.ts`,
  )![0];

  it("is an encrypted queue whose messages move to an encrypted dead-letter queue after the worker's last attempt", () => {
    const others = [
      stack.feedback.queue,
      stack.feedback.deadLetterQueue,
      stack.webhooks.queue,
      stack.webhooks.deadLetterQueue,
      stack.webhooks.slowLane.queue,
      stack.webhooks.slowLane.deadLetterQueue,
      stack.eventFanOut.failures,
      stack.broadcasts.queue,
      stack.broadcasts.deadLetterQueue,
      stack.broadcasts.scheduleDeadLetterQueue,
      stack.exports.queue,
      stack.exports.deadLetterQueue,
    ].map((queue) => stack.resolve(queue.queueArn)['Fn::GetAtt'][0] as string);
    expect(
      ofType(resources, 'AWS::SQS::Queue')
        .map(([id]) => id)
        .sort(),
    ).toEqual([queueId, deadLetterId, ...others].sort());
    const queue = resources[queueId]!.Properties;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      MaximumMessageSize: MAX_QUEUED_MESSAGE_BYTES,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: MAX_RECEIVES },
    });
    // Six times the worker's timeout, as AWS advises for an SQS event source.
    expect(queue.VisibilityTimeout).toBe(6 * resources[workerId]!.Properties.Timeout);
    expect(resources[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('keeps a body too large for the queue as long as the queue or its dead-letter queue may hold its pointer, uploads only a day', () => {
    const rules = resourcesOf(template)[stack.resolve(stack.attachments.bucket.bucketArn)['Fn::GetAtt'][0]]!.Properties.LifecycleConfiguration.Rules;
    const rule = (prefix: string) => rules.find((candidate: { Prefix?: string }) => candidate.Prefix === prefix);
    // SQS counts a message's age from its first send, also on the dead-letter queue: the longer retention is how long a pointer lives.
    const pointerSeconds = Math.max(...[queueId, deadLetterId].map((id) => resources[id]!.Properties.MessageRetentionPeriod as number));

    expect(pointerSeconds).toBe(14 * 24 * 3600);
    expect(rule(QUEUED_MESSAGES_PREFIX).ExpirationInDays * 24 * 3600).toBeGreaterThanOrEqual(pointerSeconds);
    expect(rule(QUEUED_MESSAGES_PREFIX).ExpirationInDays).toBe(QUEUED_BODY_DAYS);
    // Every object of the bucket is an upload or a queued body, each under exactly one rule: S3 would apply the shorter of two.
    const uploadKey = attachmentObjectKey(newId('acc'), newId('att'));
    const bodyKey = queuedMessageKey(newId('acc'), newId('eml'));
    expect(rules.filter((candidate: { Prefix: string }) => uploadKey.startsWith(candidate.Prefix)).map((one: { Id: string }) => one.Id)).toEqual(['uploads']);
    expect(rules.filter((candidate: { Prefix: string }) => bodyKey.startsWith(candidate.Prefix)).map((one: { Id: string }) => one.Id)).toEqual([
      'queued-bodies',
    ]);
    expect(rule(UPLOAD_KEYS_PREFIX).ExpirationInDays).toBe(1);
  });

  it('refuses requests to either queue that are not made over TLS', () => {
    const policies = ofType(resources, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
      policy.Properties.Queues.map(referencedId).some((id: string) => [queueId, deadLetterId].includes(id)),
    );
    const guarded = policies.flatMap(([, policy]) => policy.Properties.Queues.map(referencedId));
    expect(guarded.sort()).toEqual([queueId, deadLetterId].sort());
    for (const [, policy] of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('feeds the worker batches from the queue, reporting partial batch failures', () => {
    expectWorkerFedBy(resources, queueId, workerId, WORKER_BATCH_SIZE);
  });

  it("grants the worker exactly its table actions, SendEmail and the event source's queue actions", () => {
    expectWorkerGrants(stack, resources, workerId, stack.retryQueue.queue.queueArn, [
      ...tablePairs(stack, RETRY_WORKER.table, settings),
      ...RETRY_WORKER.ses.flatMap((action) => [
        pair(stack, `ses:${action}`, stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })),
        // A queued message keeps its tracking, so the worker may name the tracking set too.
        ...configurationSetsOf(stack.feedback.configurationSet.configurationSetName).map((name) =>
          pair(stack, `ses:${action}`, stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name })),
        ),
      ]),
      // Bodies too large for the queue, and nothing else of the bucket; listing, so a missing body is a 404.
      pair(stack, 's3:GetObject', stack.attachments.bucket.arnForObjects('queued/*')),
      pair(stack, 's3:ListBucket', stack.attachments.bucket.bucketArn),
    ]);
    expect(resources[workerId]!.Properties.Environment.Variables.ATTACHMENTS_BUCKET).toEqual(stack.resolve(stack.attachments.bucket.bucketName));
  });

  it('names the queue to the worker and to every function that sends mail, and to no other', () => {
    const sendingHandlers = new Set<string>(ROUTES.filter((route) => route.queues?.includes('retry')).map((route) => route.handler));
    expect([...sendingHandlers].sort()).toEqual([
      'broadcasts/test',
      'email/batch',
      'email/send',
      'forms/submit',
      'otp/send',
      'session/request-code',
      'team/create',
      'transactional/send',
    ]);
    for (const [id, fn] of postlaneFunctions(resources)) {
      const handler = /functions\/(.+)\.ts$/.exec(fn.Properties.Description)![1]!;
      const url = fn.Properties.Environment.Variables.RETRY_QUEUE_URL;
      if (sendingHandlers.has(handler) || id === workerId) expect(url, handler).toEqual({ Ref: queueId });
      else expect(url, handler).toBeUndefined();
    }
    expect(resources[workerId]!.Properties.Environment.Variables.SES_CONFIGURATION_SET).toBeDefined();
  });

  it('alarms as soon as a message reaches the dead-letter queue', () => {
    expectDeadLetterAlarm(resources, deadLetterId);
  });
});
