/**
 * The deployed roles, as IAM would judge the calls the tests record
 * (test/support/aws-calls.ts). DynamoDB Local, the SES emulator and the local
 * S3 and SQS enforce no IAM, so without this a missing grant shows only in AWS,
 * as an AccessDenied answered 500.
 *
 * The evaluator is ours: @cloud-copilot/iam-simulate (npm) evaluates policies
 * fully but is not among the project's dependencies, and what the roles use
 * is small: identity policies of Allow statements with literal actions and
 * ARNs with `*` and `?`, no conditions, no NotAction or NotResource. A
 * statement using anything else is refused rather than guessed at.
 */
import { email } from '#functions/email/contract.ts';
import { ROUTES } from '#functions/routes.ts';
import { TRACKING_SET_SUFFIX } from '#shared/sending/tracking.ts';
import { isAuthenticated, type QueueName } from '#shared/platform/http/routes.ts';
import { BROADCAST_WORKER } from '../../lib/broadcasts.ts';
import { EVENT_FAN_OUT, STREAM_READ_ACTIONS } from '../../lib/event-fan-out.ts';
import { FEEDBACK_WORKER } from '../../lib/feedback.ts';
import { EXPORT_WORKER } from '../../lib/exports.ts';
import { WEBHOOK_WORKER } from '../../lib/webhooks.ts';
import { linkSigningSecretName, type RegionalStack } from '../../lib/regional-stack.ts';
import { ofType, resourcesOf, synthesize, type Resources } from '../infra/template.ts';

/** The account the ARNs are resolved in; any fixed twelve digits do. */
export const ACCOUNT = '123456789012';
/** Secrets Manager's six random characters at the end of every secret's ARN. */
const SECRET_SUFFIX = 'AbC123';

/** What a call acts on, named as the code knows it; `arnOf` gives its ARN in one deployment. */
export type CallResource =
  /** `remote`: in another region's replica of the global table (an account's home region). */
  | { kind: 'table'; remote?: boolean }
  | { kind: 'index'; index: string; remote?: boolean }
  | { kind: 'identity'; identity: string }
  /** The stack's configuration set, or with `tracking` its sibling that tracks opens and clicks. */
  | { kind: 'configurationSet'; tracking?: boolean }
  | { kind: 'bucket' }
  | { kind: 'object'; key: string }
  | { kind: 'queue'; queue: QueueName }
  /** A queue by a URL the configuration does not name: no role grants it. */
  | { kind: 'unknownQueue'; url: string }
  /** An EventBridge bus, by name (`postlane:eventBus`). */
  | { kind: 'eventBus'; bus: string }
  /** A broadcast's one-time schedule, by name; `schedulerRole`: the role its target is run with (iam:PassRole). */
  | { kind: 'schedule'; name: string }
  | { kind: 'schedulerRole' }
  | { kind: 'secret'; secret: 'linkSigning' }
  /** A secret by a name the stack did not give the function. */
  | { kind: 'unknownSecret'; name: string }
  /** An action with no resource-level permissions (SES's account-level suppression list): IAM authorizes it on `*`. */
  | { kind: 'account' };

/** One AWS call a function made during the tests: `{ handler: 'email/send', action: 'dynamodb:PutItem', resource: { kind: 'table' } }`. */
export interface AwsCall {
  handler: string;
  action: string;
  resource: CallResource;
}

export interface Statement {
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: string[];
}

/**
 * One regional stack reduced to what evaluation needs, every reference resolved to a concrete name.
 * The functions' roles and policies live in the stack's nested stacks (lib/api.ts), where the
 * table, bucket, queues and API arrive as parameters: `resources` is the flattened template
 * (test/infra/template.ts `templateOf`), in which each such parameter reference is already the
 * value the parent passes in its AWS::CloudFormation::Stack resource's Parameters.
 */
export interface Deployment {
  stackName: string;
  region: string;
  /** The deployment's other regions, whose replicas an account homed there is written in. */
  otherRegions: string[];
  tableName: string;
  bucketName: string;
  /** Each queue a function may send to, by the name routes declare it with. */
  queueArns: Record<QueueName, string>;
  schedulerRoleArn: string;
  configurationSetName: string;
  linkSigningSecretName: string;
  /** The statements of each function's role, by handler module. */
  functions: Record<string, Statement[]>;
}

type Intrinsic = Record<string, unknown>;

/**
 * A template value with every reference made concrete: pseudo parameters from
 * the stack's region and ACCOUNT, resources by the name CloudFormation would
 * give them (their name property, else the logical id).
 */
export function resolveValue(value: unknown, resources: Resources, region: string): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as Intrinsic;
  const nameOf = (id: string): string => {
    const resource = resources[id];
    if (!resource) throw new Error(`Reference to ${id}, which the template does not have`);
    const properties = resource.Properties ?? {};
    const named = properties.BucketName ?? properties.QueueName ?? properties.TableName ?? properties.LogGroupName ?? properties.Name;
    return named === undefined ? id.toLowerCase() : resolveValue(named, resources, region);
  };
  if ('Ref' in intrinsic) {
    const ref = intrinsic.Ref as string;
    if (resources[ref] === undefined && /^referenceto/.test(ref)) {
      throw new Error(`Reference to the nested-stack parameter ${ref}: read the stack through templateOf (test/infra/template.ts), which resolves it`);
    }
    const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': region, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };
    if (ref in pseudo) return pseudo[ref]!;
    if (resources[ref]?.Type === 'AWS::SQS::Queue') return `https://sqs.${region}.amazonaws.com/${ACCOUNT}/${nameOf(ref)}`;
    return nameOf(ref);
  }
  if ('Fn::GetAtt' in intrinsic) {
    const [id, attribute] = intrinsic['Fn::GetAtt'] as [string, string];
    const type = resources[id]?.Type;
    const name = nameOf(id);
    const arns: Record<string, string> = {
      'AWS::S3::Bucket': `arn:aws:s3:::${name}`,
      'AWS::SQS::Queue': `arn:aws:sqs:${region}:${ACCOUNT}:${name}`,
      'AWS::Logs::LogGroup': `arn:aws:logs:${region}:${ACCOUNT}:log-group:${name}:*`,
      'AWS::DynamoDB::GlobalTable': `arn:aws:dynamodb:${region}:${ACCOUNT}:table/${name}`,
      'AWS::IAM::Role': `arn:aws:iam::${ACCOUNT}:role/${name}`,
    };
    if (attribute === 'Arn' && type && type in arns) return arns[type]!;
    // The table's stream, read by the fan-out's event source only (no call the tests record): any label does.
    if (attribute === 'StreamArn' && type === 'AWS::DynamoDB::GlobalTable') return `${arns[type]}/stream/2026-01-01T00:00:00.000`;
    if (attribute === 'Table.LatestStreamArn' && type === 'Custom::AWS') {
      const table = JSON.parse(resolveValue(resources[id]!.Properties.Update, resources, region)).parameters.TableName as string;
      return `arn:aws:dynamodb:${region}:${ACCOUNT}:table/${table}/stream/2026-01-01T00:00:00.000`;
    }
    if (attribute === 'QueueName' && type === 'AWS::SQS::Queue') return name;
    throw new Error(`Cannot resolve Fn::GetAtt ${id}.${attribute} (${type})`);
  }
  if ('Fn::Join' in intrinsic) {
    const [separator, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolveValue(part, resources, region)).join(separator);
  }
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}

function statementsOf(resources: Resources, functionId: string, region: string): Statement[] {
  const role = (resources[functionId]!.Properties.Role as Intrinsic)['Fn::GetAtt'] as [string, string];
  const statements: Statement[] = [];
  for (const [, policy] of ofType(resources, 'AWS::IAM::Policy')) {
    if (!policy.Properties.Roles.some((entry: Intrinsic) => entry.Ref === role[0])) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement as Intrinsic[]) {
      const unsupported = ['Condition', 'NotAction', 'NotResource', 'Principal'].filter((key) => key in statement);
      if (unsupported.length > 0) throw new Error(`The IAM check cannot evaluate ${unsupported.join(', ')} (role ${role[0]}): extend test/support/iam.ts`);
      statements.push({
        effect: statement.Effect as 'Allow' | 'Deny',
        actions: [statement.Action].flat() as string[],
        resources: [statement.Resource].flat().map((resource) => resolveValue(resource, resources, region)),
      });
    }
  }
  return statements;
}

/** A stack as `Deployment`: its functions found by their description, `Postlane functions/<handler>.ts`. */
export function deploymentOf(stack: RegionalStack, resources: Resources, regions: readonly string[] = [stack.region]): Deployment {
  const region = stack.region;
  const resolve = (token: unknown) => resolveValue(stack.resolve(token), resources, region);
  const functions: Record<string, Statement[]> = {};
  for (const [id, fn] of ofType(resources, 'AWS::Lambda::Function')) {
    const handler = /^Postlane functions\/(.+)\.ts$/.exec(fn.Properties.Description ?? '')?.[1];
    if (handler) functions[handler] = statementsOf(resources, id, region);
  }
  return {
    stackName: stack.stackName,
    region,
    otherRegions: regions.filter((other) => other !== region),
    tableName: resolve(stack.table.tableName),
    bucketName: resolve(stack.attachments.bucket.bucketName),
    queueArns: {
      retry: resolve(stack.retryQueue.queue.queueArn),
      webhooks: resolve(stack.webhooks.queue.queueArn),
      webhooksSlow: resolve(stack.webhooks.slowLane.queue.queueArn),
      broadcast: resolve(stack.broadcasts.queue.queueArn),
      export: resolve(stack.exports.queue.queueArn),
    },
    schedulerRoleArn: resolve(stack.broadcasts.schedulerRole.roleArn),
    configurationSetName: resolve(stack.feedback.configurationSet.configurationSetName),
    linkSigningSecretName: linkSigningSecretName(resolve(stack.table.tableName)),
    functions,
  };
}

/**
 * The EventBridge bus the checked deployments put events on (`postlane:eventBus`):
 * with the option on, the fan-out function has its one more grant, which the
 * bundle suite exercises (test/bundles).
 */
export const TEST_EVENT_BUS = 'postlane-test-events';

/** The context the global check synthesizes the stacks with: every option that adds a grant, on. */
export const CHECKED_CONTEXT: Readonly<Record<string, unknown>> = { 'postlane:eventBus': TEST_EVENT_BUS };

/** Every regional stack of the app with this context, as deployments. */
export function synthesizeDeployments(context: Record<string, unknown> = {}): Deployment[] {
  const { stacks, settings } = synthesize(context);
  return stacks.map(({ stack, template }) => deploymentOf(stack, resourcesOf(template), settings.regions));
}

/** The ARN IAM authorizes the call against, in this deployment. */
export function arnOf(resource: CallResource, deployment: Deployment): string {
  const { region } = deployment;
  // A call that went to another region's replica: an account's home, which the check takes to be the first other region.
  const tableIn = (remote: boolean | undefined) =>
    `arn:aws:dynamodb:${remote ? (deployment.otherRegions[0] ?? region) : region}:${ACCOUNT}:table/${deployment.tableName}`;
  switch (resource.kind) {
    case 'table':
      return tableIn(resource.remote);
    case 'index':
      return `${tableIn(resource.remote)}/index/${resource.index}`;
    case 'identity':
      return `arn:aws:ses:${region}:${ACCOUNT}:identity/${resource.identity}`;
    case 'configurationSet':
      return `arn:aws:ses:${region}:${ACCOUNT}:configuration-set/${deployment.configurationSetName}${resource.tracking ? TRACKING_SET_SUFFIX : ''}`;
    case 'bucket':
      return `arn:aws:s3:::${deployment.bucketName}`;
    case 'object':
      return `arn:aws:s3:::${deployment.bucketName}/${resource.key}`;
    case 'queue':
      return deployment.queueArns[resource.queue];
    case 'unknownQueue':
      return `arn:aws:sqs:${region}:${ACCOUNT}:${resource.url.split('/').pop()}`;
    case 'eventBus':
      return `arn:aws:events:${region}:${ACCOUNT}:event-bus/${resource.bus}`;
    case 'schedule':
      return `arn:aws:scheduler:${region}:${ACCOUNT}:schedule/default/${resource.name}`;
    case 'schedulerRole':
      return deployment.schedulerRoleArn;
    case 'secret':
      return `arn:aws:secretsmanager:${region}:${ACCOUNT}:secret:${deployment.linkSigningSecretName}-${SECRET_SUFFIX}`;
    case 'unknownSecret':
      return `arn:aws:secretsmanager:${region}:${ACCOUNT}:secret:${resource.name}-${SECRET_SUFFIX}`;
    case 'account':
      return '*';
  }
}

/** IAM's wildcards: `*` any run of characters (`/` and `:` included), `?` any one; actions compare case-insensitively. */
export function matchesPattern(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'i' : '').test(value);
}

function matches(statement: Statement, action: string, arn: string): boolean {
  return statement.actions.some((pattern) => matchesPattern(pattern, action, true)) && statement.resources.some((pattern) => matchesPattern(pattern, arn));
}

/** IAM's answer for one identity-policy request: an explicit Deny wins, else any Allow, else the implicit deny. */
export function isAllowed(statements: readonly Statement[], action: string, arn: string): boolean {
  if (statements.some((statement) => statement.effect === 'Deny' && matches(statement, action, arn))) return false;
  return statements.some((statement) => statement.effect === 'Allow' && matches(statement, action, arn));
}

export interface Denial {
  stackName: string;
  handler: string;
  action: string;
  arn: string;
}

/** Every recorded call some deployment's role would refuse; a function the stack lacks refuses everything. */
export function denials(calls: readonly AwsCall[], deployments: readonly Deployment[]): Denial[] {
  const found = new Map<string, Denial>();
  for (const deployment of deployments) {
    for (const call of calls) {
      const arn = arnOf(call.resource, deployment);
      if (isAllowed(deployment.functions[call.handler] ?? [], call.action, arn)) continue;
      const denial = { stackName: deployment.stackName, handler: call.handler, action: call.action, arn };
      found.set(JSON.stringify(denial), denial);
    }
  }
  return [...found.values()];
}

/**
 * Actions a role grants that no recorded call of its function needed: with
 * least privilege, taking any one away must deny something the tests do.
 * `expected` lists the grants tests cannot exercise, each with its reason.
 */
export function unusedActions(
  calls: readonly AwsCall[],
  deployments: readonly Deployment[],
  expected: Readonly<Record<string, string>>,
): { stackName: string; handler: string; action: string }[] {
  const unused: { stackName: string; handler: string; action: string }[] = [];
  for (const deployment of deployments) {
    for (const [handler, statements] of Object.entries(deployment.functions)) {
      const used = calls.filter((call) => call.handler === handler);
      const granted = new Set(statements.filter((statement) => statement.effect === 'Allow').flatMap((statement) => statement.actions));
      for (const action of granted) {
        if (action in expected || `${handler} ${action}` in expected) continue;
        if (used.some((call) => matchesPattern(action, call.action, true))) continue;
        unused.push({ stackName: deployment.stackName, handler, action });
      }
    }
  }
  return unused;
}

/** Grants no test can exercise, each with why it is still needed. */
export const UNEXERCISED_GRANTS: Readonly<Record<string, string>> = {
  'logs:CreateLogStream': "the Lambda runtime writes the function's logs with its role",
  'logs:PutLogEvents': "the Lambda runtime writes the function's logs with its role",
  'sqs:ReceiveMessage': "the SQS event source mapping polls the retry queue with the worker's role",
  'sqs:DeleteMessage': 'the SQS event source mapping deletes the messages the worker settled',
  'sqs:GetQueueAttributes': "the SQS event source mapping reads the queue's attributes",
  'sqs:GetQueueUrl': "granted with the event source mapping's other actions (grantConsumeMessages)",
  // The retry worker uses it for its backoff (tested); these two reschedule by sending a new message instead, and the feedback worker leaves it to the queue's visibility timeout.
  ...Object.fromEntries(
    [WEBHOOK_WORKER.handler, BROADCAST_WORKER.handler, FEEDBACK_WORKER.handler, EXPORT_WORKER.handler].map((handler) => [
      `${handler} sqs:ChangeMessageVisibility`,
      "granted with the SQS event source mapping's other actions (CDK's grantConsumeMessages)",
    ]),
  ),
  ...Object.fromEntries(
    STREAM_READ_ACTIONS.map((action) => [
      `${EVENT_FAN_OUT.handler} ${action}`,
      "the table stream's event source mapping reads the stream with the fan-out's role",
    ]),
  ),
  // Only a message over SQS's 1 MiB goes to the bucket; the tests build one with attachments, which
  // only email/send takes, while the others that declare `queue` send through the same code (shared/sending/retry.ts).
  // Single-region runs route nothing: only a keyed route that reads nothing else by key would leave it unused.
  ...Object.fromEntries(
    ROUTES.filter((route) => isAuthenticated(route) && !route.table?.includes('GetItem')).map((route) => [
      `${route.handler} dynamodb:GetItem`,
      "with home regions, a keyed request reads its account's home before the key check (shared/platform/dynamodb/client.ts)",
    ]),
  ),
  ...Object.fromEntries(
    ROUTES.filter((route) => route.attachments?.includes('queue') && route.handler !== email.send.handler).map((route) => [
      `${route.handler} s3:PutObject`,
      `a throttled message too large for the retry queue is stored under queued/ (tested through ${email.send.handler})`,
    ]),
  ),
};

/**
 * The global teardown's check of every call the workers recorded (files
 * written by test/support/aws-calls.ts): the denials always; grants never used
 * only when every test file ran, since a partial run leaves most unused.
 * Returns the problems, one line each, naming stack, function, action and resource.
 */
export function checkRecordedCalls(records: readonly { testFile: string; calls: AwsCall[] }[], allTestFiles: readonly string[]): string[] {
  const calls = records.flatMap((record) => record.calls);
  if (calls.length === 0) return [];
  const deployments = synthesizeDeployments(CHECKED_CONTEXT);
  const problems = denials(calls, deployments).map(
    (denial) => `${denial.stackName}: functions/${denial.handler}.ts calls ${denial.action} on ${denial.arn}, which its role denies`,
  );
  const ran = new Set(records.map((record) => record.testFile));
  if (allTestFiles.every((file) => ran.has(file))) {
    problems.push(
      ...unusedActions(calls, deployments, UNEXERCISED_GRANTS).map(
        (grant) =>
          `${grant.stackName}: functions/${grant.handler}.ts is granted ${grant.action} but no test made it call that (least privilege: drop it, or test the path that needs it)`,
      ),
    );
  }
  return problems;
}
