/**
 * The IAM check's own parts (test/support/iam.ts, test/support/aws-calls.ts):
 * the roles read from the synthesized stacks, the evaluator, and the mapping
 * of SDK requests to the actions IAM authorizes. The check itself runs over
 * every test's recorded calls in the global teardown.
 */
import { describe, expect, it } from 'vitest';
import { dynamoActions, sesActions } from '../support/aws-calls.ts';
import { arnOf, denials, isAllowed, synthesizeDeployments, unusedActions, type AwsCall, type Deployment } from '../support/iam.ts';

const deployments = synthesizeDeployments();
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
