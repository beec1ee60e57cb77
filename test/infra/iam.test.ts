/**
 * The IAM check's own parts (test/support/iam.ts, test/support/aws-calls.ts):
 * the roles read from the synthesized stacks, the evaluator, and the mapping
 * of SDK requests to the actions IAM authorizes. The check itself runs over
 * every test's recorded calls in the global teardown.
 */
import { describe, expect, it } from 'vitest';
import { TRACKING_OPTIONS_TAG } from '#shared/sending/message-tags.ts';
import { TRACKING_SET_SUFFIX } from '#shared/sending/tracking.ts';
import { dynamoActions, eventsActions, sesActions, sqsActions } from '../support/aws-calls.ts';
import { EXPORT_WORKER } from '../../lib/exports.ts';
import {
  arnOf,
  CHECKED_CONTEXT,
  denials,
  isAllowed,
  synthesizeDeployments,
  TEST_EVENT_BUS,
  unusedActions,
  type AwsCall,
  type CallResource,
  type Deployment,
} from '../support/iam.ts';

// As the global check synthesizes them: every option that adds a grant on (the EventBridge bus).
const deployments = synthesizeDeployments(CHECKED_CONTEXT);
const [home] = deployments;

/** What POST /api/email/send with an idempotencyKey calls, as the tests record it. */
const SEND_WITH_IDEMPOTENCY: AwsCall[] = [
  ['dynamodb:BatchGetItem', { kind: 'table' }],
  ['dynamodb:UpdateItem', { kind: 'table' }],
  ['dynamodb:GetItem', { kind: 'table' }],
  ['dynamodb:Query', { kind: 'table' }],
  ['dynamodb:Query', { kind: 'index', index: 'gsi1' }],
  ['dynamodb:PutItem', { kind: 'table' }],
  ['dynamodb:DeleteItem', { kind: 'table' }],
  ['dynamodb:BatchWriteItem', { kind: 'table' }],
  ['ses:SendEmail', { kind: 'identity', identity: 'mail.example.com' }],
  ['ses:SendEmail', { kind: 'configurationSet' }],
  ['secretsmanager:GetSecretValue', { kind: 'secret', secret: 'linkSigning' }],
  ['sqs:SendMessage', { kind: 'queue', queue: 'retry' }],
  ['s3:GetObject', { kind: 'object', key: 'uploads/att_1' }],
  ['s3:ListBucket', { kind: 'bucket' }],
  ['s3:PutObject', { kind: 'object', key: 'queued/eml_1' }],
].map(([action, resource]) => ({ handler: 'email/send', action, resource }) as AwsCall);

/** The calls a mapping of aws-calls.ts makes of one request, as `handler`'s. */
const callsOf = (handler: string, actions: [string, CallResource][]): AwsCall[] => actions.map(([action, resource]) => ({ handler, action, resource }));

/** The deployment with the resources `dropped` picks taken out of one function's statements for `action` (a statement left with none goes). */
function withoutResource(deployment: Deployment, handler: string, action: string, dropped: (arn: string) => boolean): Deployment {
  const statements = deployment.functions[handler]!.flatMap((statement) => {
    if (!statement.actions.includes(action)) return [statement];
    const resources = statement.resources.filter((arn) => !dropped(arn));
    return resources.length === 0 ? [] : [{ ...statement, resources }];
  });
  return { ...deployment, functions: { ...deployment.functions, [handler]: statements } };
}

/** The deployment with one action taken out of one function's role. */
function without(deployment: Deployment, handler: string, action: string): Deployment {
  const statements = deployment.functions[handler]!.map((statement) => ({ ...statement, actions: statement.actions.filter((granted) => granted !== action) }));
  return { ...deployment, functions: { ...deployment.functions, [handler]: statements } };
}

describe('the IAM check', () => {
  it('allows what email/send does with an idempotency key, in both regions (AWS denied its PutItem and DeleteItem before)', () => {
    expect(denials(SEND_WITH_IDEMPOTENCY, deployments)).toEqual([]);
  });

  it.each(['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'ses:SendEmail', 's3:ListBucket', 'sqs:SendMessage', 'secretsmanager:GetSecretValue'])(
    'fails, naming function, action and resource, once email/send loses %s',
    (action) => {
      const found = denials(SEND_WITH_IDEMPOTENCY, [without(home!, 'email/send', action)]);
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((denial) => denial.handler === 'email/send' && denial.action === action && denial.arn.startsWith('arn:aws:'))).toBe(true);
    },
  );

  it("judges a call that went to another region's replica (an account's home) on that replica's ARN: granted with a global table, denied with independent regions", () => {
    const remote: AwsCall[] = [{ handler: 'contacts/create', action: 'dynamodb:PutItem', resource: { kind: 'table', remote: true } }];
    expect(arnOf(remote[0]!.resource, home!)).toBe(`arn:aws:dynamodb:${home!.otherRegions[0]}:123456789012:table/${home!.tableName}`);
    expect(denials(remote, deployments)).toEqual([]);

    const independent = synthesizeDeployments({ 'postlane:independentRegions': 'true' });
    expect(denials(remote, independent).map((denial) => denial.arn)).toEqual(independent.map((deployment) => arnOf(remote[0]!.resource, deployment)));
  });

  it('reports an action granted but never called', () => {
    const calls = SEND_WITH_IDEMPOTENCY.filter((call) => call.action !== 'dynamodb:DeleteItem');
    const unused = unusedActions(calls, [home!], { 'logs:CreateLogStream': '', 'logs:PutLogEvents': '' }).filter((grant) => grant.handler === 'email/send');
    expect(unused).toEqual([{ stackName: home!.stackName, handler: 'email/send', action: 'dynamodb:DeleteItem' }]);
  });

  it('authorizes a Query of an index on the index, and a send on the one configuration set the stack made', () => {
    const queryOnly = home!.functions['contacts/list']!;
    expect(isAllowed(queryOnly, 'dynamodb:Query', arnOf({ kind: 'index', index: 'gsi1' }, home!))).toBe(true);
    expect(isAllowed(queryOnly, 'dynamodb:Query', `${arnOf({ kind: 'table' }, home!)}/index/unknown`)).toBe(false);
    const send = home!.functions['email/send']!;
    expect(isAllowed(send, 'ses:SendEmail', arnOf({ kind: 'configurationSet' }, home!))).toBe(true);
    expect(isAllowed(send, 'ses:SendEmail', arnOf({ kind: 'configurationSet' }, home!).replace(/[^/]+$/, 'another-set'))).toBe(false);
  });

  it('evaluates as IAM does: wildcards in actions and resources, an explicit Deny over any Allow', () => {
    const statements = [
      { effect: 'Allow' as const, actions: ['dynamodb:Get*'], resources: ['arn:aws:dynamodb:us-east-1:123456789012:table/t*'] },
      { effect: 'Deny' as const, actions: ['dynamodb:GetItem'], resources: ['arn:aws:dynamodb:us-east-1:123456789012:table/tx'] },
    ];
    expect(isAllowed(statements, 'DynamoDB:GetItem', 'arn:aws:dynamodb:us-east-1:123456789012:table/t1')).toBe(true);
    expect(isAllowed(statements, 'dynamodb:GetItem', 'arn:aws:dynamodb:us-east-1:123456789012:table/tx')).toBe(false);
    expect(isAllowed(statements, 'dynamodb:PutItem', 'arn:aws:dynamodb:us-east-1:123456789012:table/t1')).toBe(false);
  });
});

describe('the IAM check sees every call', () => {
  const tracked = callsOf(
    'email/send',
    sesActions('SendEmail', { FromEmailAddress: 'news@mail.example.com', EmailTags: [{ Name: TRACKING_OPTIONS_TAG, Value: 'opens' }] }),
  );
  const untracked = callsOf('email/send', sesActions('SendEmail', { FromEmailAddress: 'news@mail.example.com' }));

  it("judges a tracked send on the tracking configuration set, so dropping that set's grant fails it", () => {
    const noTrackingSet = withoutResource(home!, 'email/send', 'ses:SendEmail', (arn) => arn.endsWith(TRACKING_SET_SUFFIX));
    expect(denials([...tracked, ...untracked], [home!])).toEqual([]);
    expect(denials(untracked, [noTrackingSet])).toEqual([]);
    expect(denials(tracked, [noTrackingSet]).map((denial) => denial.arn)).toEqual([
      `arn:aws:ses:${home!.region}:123456789012:configuration-set/${home!.configurationSetName}${TRACKING_SET_SUFFIX}`,
    ]);
    // Deployed, the set is named in the request: the same judgement.
    const named = callsOf(
      'email/send',
      sesActions('SendEmail', { FromEmailAddress: 'news@mail.example.com', ConfigurationSetName: `x${TRACKING_SET_SUFFIX}` }),
    );
    expect(denials(named, [noTrackingSet])).toHaveLength(1);
  });

  it("judges a Query of an index on another region's replica on that replica's index, which the replica's table grant does not cover", () => {
    const remote = callsOf('contacts/list', dynamoActions('Query', { IndexName: 'gsi1' }, true));
    const replicaIndex = `arn:aws:dynamodb:${home!.otherRegions[0]}:123456789012:table/${home!.tableName}/index/gsi1`;
    expect(arnOf(remote[0]!.resource, home!)).toBe(replicaIndex);
    // The stack grants no Query of another replica's index: the code never sends one there (an index cannot be read consistently).
    expect(denials(remote, [home!]).map((denial) => denial.arn)).toEqual([replicaIndex]);
    const granted: Deployment = {
      ...home!,
      functions: {
        ...home!.functions,
        'contacts/list': [...home!.functions['contacts/list']!, { effect: 'Allow', actions: ['dynamodb:Query'], resources: [replicaIndex] }],
      },
    };
    expect(denials(remote, [granted])).toEqual([]);
    expect(denials(remote, [withoutResource(granted, 'contacts/list', 'dynamodb:Query', (arn) => arn === replicaIndex)])).toHaveLength(1);
  });

  it('records a send to a queue the configuration does not name, and no role grants it', () => {
    const retry = process.env.RETRY_QUEUE_URL!;
    expect(denials(callsOf('email/send', sqsActions('SendMessage', { QueueUrl: retry })), [home!])).toEqual([]);
    const stray = callsOf('email/send', sqsActions('SendMessageBatch', { QueueUrl: 'http://127.0.0.1:9324/000000000000/somewhere-else' }));
    expect(stray).toEqual([
      { handler: 'email/send', action: 'sqs:SendMessage', resource: { kind: 'unknownQueue', url: expect.stringContaining('somewhere-else') } },
    ]);
    expect(denials(stray, [home!]).map((denial) => denial.arn)).toEqual([`arn:aws:sqs:${home!.region}:123456789012:somewhere-else`]);
  });

  it("judges the fan-out's PutEvents on the bus it names, so dropping the grant fails it", () => {
    const put = callsOf('events/fan-out', eventsActions('PutEvents', { Entries: [{ EventBusName: TEST_EVENT_BUS, Source: 'postlane' }] }));
    expect(put).toEqual([{ handler: 'events/fan-out', action: 'events:PutEvents', resource: { kind: 'eventBus', bus: TEST_EVENT_BUS } }]);
    expect(denials(put, deployments)).toEqual([]);
    expect(denials(put, [without(home!, 'events/fan-out', 'events:PutEvents')]).map((denial) => denial.arn)).toEqual([
      `arn:aws:events:${home!.region}:123456789012:event-bus/${TEST_EVENT_BUS}`,
    ]);
    // Without the option the stack grants nothing on any bus.
    expect(denials(put, synthesizeDeployments()).length).toBeGreaterThan(0);
  });
});

describe('the recorded actions', () => {
  it("of a transaction are its items' own, and a Query of an index names the index", () => {
    expect(
      dynamoActions('TransactWriteItems', { TransactItems: [{ Put: {} }, { Update: {} }, { ConditionCheck: {} }, { Delete: {} }] }).map(([action]) => action),
    ).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem']);
    expect(dynamoActions('Query', { IndexName: 'gsi2' })).toEqual([['dynamodb:Query', { kind: 'index', index: 'gsi2' }]]);
  });

  it("of SendEmail are on the sender's domain identity and on the configuration set", () => {
    expect(sesActions('SendEmail', { FromEmailAddress: '"Acme" <News@Mail.Example.com>' })).toEqual([
      ['ses:SendEmail', { kind: 'identity', identity: 'mail.example.com' }],
      ['ses:SendEmail', { kind: 'configurationSet' }],
    ]);
  });
});

describe('the IAM check of the export worker', () => {
  /** What one export job calls, as test/api/audience-export-queued.test.ts records it. */
  const EXPORT_JOB = callsOf(EXPORT_WORKER.handler, [
    ['dynamodb:UpdateItem', { kind: 'table' }],
    ['dynamodb:Query', { kind: 'index', index: 'gsi1' }],
    ['s3:PutObject', { kind: 'object', key: 'exports/acc_1/aud_1/exp_1.csv' }],
  ]);

  it('allows what an export job does, in both regions', () => {
    expect(denials(EXPORT_JOB, deployments)).toEqual([]);
  });

  it.each(['dynamodb:UpdateItem', 'dynamodb:Query', 's3:PutObject'])('fails, naming the worker and the action, once the worker loses %s', (action) => {
    const found = denials(EXPORT_JOB, [without(home!, EXPORT_WORKER.handler, action)]);
    expect(found.map((denial) => [denial.handler, denial.action])).toEqual([[EXPORT_WORKER.handler, action]]);
  });

  it('denies the worker any object outside exports/', () => {
    const elsewhere = callsOf(EXPORT_WORKER.handler, [['s3:PutObject', { kind: 'object', key: 'uploads/att_1' }]]);
    expect(denials(elsewhere, deployments)).toHaveLength(deployments.length);
  });
});
