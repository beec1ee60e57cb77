import { ArnFormat, Duration, Names, RemovalPolicy, Stack, Token, type CfnElement } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { GLOBAL_INDEXES } from '#shared/platform/dynamodb/table.ts';
import { configurationSetsOf } from '#shared/sending/tracking.ts';
import { EXPORTS_PREFIX } from '#shared/contacts/export-policy.ts';
import { QUEUED_MESSAGES_PREFIX } from '#shared/sending/retry-policy.ts';
import { EMAIL_CONTENT_PREFIX } from '#shared/messages/content-policy.ts';
import type { AttachmentsAccess, QueueName, ScheduleAction, SecretName, SesAction, TableAction } from '#shared/platform/http/routes.ts';
import { functionCode } from './function-code.ts';
import { acknowledgeFindings } from './nag.ts';

export interface EndpointFunctionProps {
  /** Module under functions/ exporting `handler`, named as in the route table: `contacts/get`. */
  readonly handler: string;
  readonly table: ITableV2;
  /** Granted on the table and nothing more; `Query` is also granted on the table's indexes. */
  readonly tableActions: readonly TableAction[];
  readonly sesActions?: readonly SesAction[];
  /** The Secrets Manager name of each secret the function reads; only these are granted. */
  readonly secrets?: Partial<Record<SecretName, string>>;
  /** The SES configuration set a sending function names in SendEmail (its events feed back bounces and complaints). */
  readonly sesConfigurationSet?: string;
  /** The attachments bucket and what the function does with it; its name reaches the code as ATTACHMENTS_BUCKET. */
  readonly attachments?: { readonly bucket: IBucket; readonly access: readonly AttachmentsAccess[] };
  /** Queues the function sends messages to; only sqs:SendMessage on these is granted. */
  readonly queues?: Partial<Record<QueueName, IQueue>>;
  /**
   * Broadcasts' one-time schedules: the queue their target puts the start step on, the role EventBridge Scheduler
   * assumes for it, and the queue it writes the step to when it cannot.
   */
  readonly scheduler?: { readonly queue: IQueue; readonly role: IRole; readonly deadLetterQueue: IQueue; readonly actions: readonly ScheduleAction[] };
  /** A worker's own timeout and memory, where its work is longer than a request's (the export worker); MEMORY_MB and 28 s unless given. */
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

/**
 * A function no HTTP route invokes, as its module declares it: the handler and what it is granted. The infra
 * tests and the IAM check read the same object (RETRY_WORKER, BROADCAST_WORKER, WEBHOOK_WORKER).
 */
export interface DeclaredFunction {
  readonly handler: string;
  readonly table: readonly TableAction[];
  readonly ses?: readonly SesAction[];
  readonly secrets?: readonly SecretName[];
  readonly attachments?: readonly AttachmentsAccess[];
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

/** The stack's resources a declared function's grants may name; each is passed on only if the declaration asks for it. */
export interface DeclaredFunctionResources {
  readonly table: ITableV2;
  readonly sesConfigurationSet?: string;
  readonly secretNames?: Partial<Record<SecretName, string>>;
  readonly attachmentsBucket?: IBucket;
}

/**
 * The props of a declared function, its actions taken from the declaration so they are written once:
 * `new EndpointFunction(this, 'Worker', declaredFunctionProps(RETRY_WORKER, { table, sesConfigurationSet }))`.
 */
export function declaredFunctionProps(declared: DeclaredFunction, resources: DeclaredFunctionResources): EndpointFunctionProps {
  const { attachmentsBucket, secretNames } = resources;
  return {
    handler: declared.handler,
    table: resources.table,
    tableActions: declared.table,
    sesActions: declared.ses,
    sesConfigurationSet: declared.ses ? resources.sesConfigurationSet : undefined,
    secrets: declared.secrets && Object.fromEntries(declared.secrets.map((name) => [name, secretNames?.[name]])),
    attachments: declared.attachments && attachmentsBucket && { bucket: attachmentsBucket, access: declared.attachments },
    timeoutSeconds: declared.timeoutSeconds,
    memoryMb: declared.memoryMb,
  };
}

/** The environment variable through which each queue's URL reaches the code (shared/platform/config.ts). */
const QUEUE_ENVIRONMENT: Record<QueueName, string> = {
  retry: 'RETRY_QUEUE_URL',
  webhooks: 'WEBHOOK_QUEUE_URL',
  webhooksSlow: 'WEBHOOK_SLOW_QUEUE_URL',
  broadcast: 'BROADCAST_QUEUE_URL',
  export: 'EXPORT_QUEUE_URL',
};

/** The environment variable through which each secret's name reaches the code (shared/platform/config.ts). */
const SECRET_ENVIRONMENT: Record<SecretName, string> = { linkSigning: 'SIGNING_SECRET_PARAMETER' };

/**
 * A secret's ARN for IAM, by name: Secrets Manager appends six random
 * characters to every ARN, and a replica in another region has its own, so
 * only the name is known here.
 */
export function secretArnForPolicies(stack: Stack, secretName: string): string {
  return stack.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${secretName}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
}

/** The ARN of the global table's replica in `region`: a replica keeps the table's name. */
export function replicaArn(stack: Stack, region: string, tableName: string): string {
  return stack.formatArn({ service: 'dynamodb', region, resource: 'table', resourceName: tableName });
}

/**
 * 512 MB: Lambda's CPU share grows with memory (one vCPU at 1,769 MB), and loading a
 * bundle costs about 50 ms of one full core, so roughly 350 ms of cold start at 256 MB
 * and 175 ms at 512 MB. A 50 ms request at 512 MB on arm64 costs about $0.33 per
 * million in duration, next to $1.00 per million for the HTTP API itself.
 */
export const MEMORY_MB = 512;

/**
 * Below the HTTP API's 29 s integration timeout, so a slow invocation ends before
 * the client has been told it failed; otherwise it could keep writing while the
 * client retries.
 */
const TIMEOUT = Duration.seconds(28);

/**
 * One Lambda function for one handler module of the route table, with the runtime
 * defaults every endpoint shares and exactly the permissions it declares.
 *
 * `new EndpointFunction(this, 'ContactsGet', { handler: 'contacts/get', table, tableActions: ['GetItem'] })`
 */
export class EndpointFunction extends Construct {
  readonly function: LambdaFunction;
  private readonly tableActions: readonly TableAction[];

  constructor(scope: Construct, id: string, props: EndpointFunctionProps) {
    super(scope, id);
    this.tableActions = props.tableActions;
    const entry = `functions/${props.handler}.ts`;
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // Not AWSLambdaBasicExecutionRole: it may write to any log group in the account.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    this.function = new LambdaFunction(this, 'Function', {
      code: functionCode(props.handler),
      handler: 'index.handler',
      description: `Postlane ${entry}`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? MEMORY_MB,
      timeout: props.timeoutSeconds === undefined ? TIMEOUT : Duration.seconds(props.timeoutSeconds),
      environment: {
        TABLE_NAME: props.table.tableName,
        ...(props.sesConfigurationSet && props.sesActions?.includes('SendEmail') ? { SES_CONFIGURATION_SET: props.sesConfigurationSet } : {}),
        ...(props.attachments?.access.length ? { ATTACHMENTS_BUCKET: props.attachments.bucket.bucketName } : {}),
        ...Object.fromEntries(Object.entries(props.secrets ?? {}).map(([name, secretName]) => [SECRET_ENVIRONMENT[name as SecretName], secretName])),
        ...Object.fromEntries(Object.entries(props.queues ?? {}).map(([name, queue]) => [QUEUE_ENVIRONMENT[name as QueueName], queue.queueUrl])),
        ...(props.scheduler
          ? {
              BROADCAST_QUEUE_ARN: props.scheduler.queue.queueArn,
              BROADCAST_SCHEDULER_ROLE_ARN: props.scheduler.role.roleArn,
              BROADCAST_SCHEDULE_DLQ_ARN: props.scheduler.deadLetterQueue.queueArn,
            }
          : {}),
      },
      logGroup,
      role,
    });
    acknowledgeFindings(this, {
      'Serverless-LambdaDLQ':
        "A dead-letter target catches failed asynchronous invocations only: API Gateway and the SQS and stream event sources invoke synchronously (each queue has its dead-letter queue, the stream its on-failure queue); the one asynchronous invoker, the hourly reconciliation's schedule, needs none, as a failed run leaves its cursor for the next (docs/operations.md, Failure paths)",
      'Serverless-LambdaTracing':
        'No X-Ray: every log line carries the request id and duration (docs/architecture.md), and tracing would add cost and a wildcard xray grant to every role',
    });
    this.grantTable(props.table, props.tableActions);
    this.grantSes(props.sesActions ?? [], props.sesConfigurationSet);
    this.grantSecrets(Object.values(props.secrets ?? {}));
    if (props.attachments) this.grantAttachments(props.attachments.bucket, props.attachments.access);
    this.grantQueues(Object.values(props.queues ?? {}));
    if (props.scheduler) this.grantScheduler(props.scheduler.role, props.scheduler.actions);
  }

  /**
   * Creating, moving and deleting broadcasts' schedules in the default group,
   * whose names start with the account id (shared/broadcasts/scheduler.ts),
   * and, to those that create or move one, handing EventBridge Scheduler the
   * one role that may only put a step on the broadcast queue.
   */
  private grantScheduler(role: IRole, actions: readonly ScheduleAction[]): void {
    const stack = Stack.of(this);
    const schedules = stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: 'default/acc_*', arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    this.function.addToRolePolicy(new PolicyStatement({ actions: actions.map((action) => `scheduler:${action}`), resources: [schedules] }));
    if (actions.some((action) => action !== 'DeleteSchedule'))
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['iam:PassRole'], resources: [role.roleArn] }));
    acknowledgeFindings(this, {
      [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:${Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region}:<AWS::AccountId>:schedule/default/acc_*]`]:
        'One schedule per broadcast, named by its account and broadcast ids at run time: only the name prefix is known here',
    });
  }

  /**
   * `upload`: s3:PutObject, which a pre-signed PUT URL acts with. `read`:
   * s3:GetObject, and s3:ListBucket so a missing object is S3's 404 NoSuchKey
   * rather than a 403 that cannot be told from a broken grant. `queue` and
   * `dequeue`: s3:PutObject and s3:GetObject under `queued/` only, and for
   * `dequeue` s3:ListBucket too, for the same 404. `export`: s3:PutObject and
   * s3:GetObject (what its presigned link acts with) under `exports/` only, and s3:ListBucket;
   * `writeExport` the first (the export worker), `signExport` the second two (an export's status, with a fresh link).
   * `storeContent` and
   * `readContent`: the same two under `content/` (messages' content).
   */
  private grantAttachments(bucket: IBucket, access: readonly AttachmentsAccess[]): void {
    const objects = bucket.arnForObjects('*');
    const queued = bucket.arnForObjects(`${QUEUED_MESSAGES_PREFIX}*`);
    if (access.includes('upload')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    if (access.includes('read')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
    if (access.includes('queue')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [queued] }));
    const exported = bucket.arnForObjects(`${EXPORTS_PREFIX}*`);
    if (access.includes('export')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [exported] }));
    if (access.includes('writeExport')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [exported] }));
    if (access.includes('signExport')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [exported] }));
    if (['read', 'dequeue', 'export', 'signExport', 'readContent'].some((kind) => access.includes(kind as AttachmentsAccess))) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    }
    if (access.includes('dequeue')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [queued] }));
    const content = bucket.arnForObjects(`${EMAIL_CONTENT_PREFIX}*`);
    if (access.includes('storeContent')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [content] }));
    if (access.includes('readContent')) this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [content] }));
    // cdk-nag names the bucket's ARN as the policy's template writes it: `<logicalId.Arn>` in the
    // bucket's own stack; in a nested stack (lib/api.ts), the parameter CDK passes it through,
    // `reference-to-<the bucket's unique id>Arn` made alphanumeric (aws-cdk-lib core/lib/private/refs.js).
    const stack = Stack.of(this);
    const bucketResource = bucket.node.defaultChild as CfnElement;
    const bucketArn =
      bucket.stack === stack
        ? `${stack.resolve(stack.getLogicalId(bucketResource)) as string}.Arn`
        : `reference-to-${Names.nodeUniqueId(bucketResource.node)}Arn`.replace(/[^A-Za-z0-9]/g, '');
    const objectKeys = "Object keys are made at run time (an upload's id, a queued message's id, an email's id), so only a prefix of the bucket can be named";
    acknowledgeFindings(this, {
      ...(access.includes('upload') || access.includes('read') ? { [`AwsSolutions-IAM5[Resource::<${bucketArn}>/*]`]: objectKeys } : {}),
      ...(access.includes('queue') || access.includes('dequeue')
        ? { [`AwsSolutions-IAM5[Resource::<${bucketArn}>/${QUEUED_MESSAGES_PREFIX}*]`]: objectKeys }
        : {}),
      ...(access.includes('export') || access.includes('writeExport') || access.includes('signExport')
        ? { [`AwsSolutions-IAM5[Resource::<${bucketArn}>/${EXPORTS_PREFIX}*]`]: objectKeys }
        : {}),
      ...(access.includes('storeContent') || access.includes('readContent')
        ? { [`AwsSolutions-IAM5[Resource::<${bucketArn}>/${EMAIL_CONTENT_PREFIX}*]`]: objectKeys }
        : {}),
    });
  }

  /**
   * SendMessage only: not receiving or deleting (the queue's worker does that),
   * nor the attribute reads grantSendMessages adds; the code knows the queue's URL.
   */
  private grantQueues(queues: readonly IQueue[]): void {
    if (queues.length === 0) return;
    this.function.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: queues.map((queue) => queue.queueArn) }));
  }

  /** Reading the value only: not describing, listing or changing it. */
  private grantSecrets(secretNames: readonly string[]): void {
    if (secretNames.length === 0) return;
    const stack = Stack.of(this);
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: secretNames.map((name) => secretArnForPolicies(stack, name)),
      }),
    );
  }

  private grantTable(table: ITableV2, actions: readonly TableAction[]): void {
    if (actions.length === 0) return;
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn],
      }),
    );
    // Only Query reads an index; every other action names the table itself.
    if (actions.includes('Query')) {
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: GLOBAL_INDEXES.map((index) => `${table.tableArn}/index/${index.indexName}`),
        }),
      );
    }
  }

  /**
   * The deployment's regions reach the code (DEPLOYMENT_REGIONS, REGION_MODE,
   * docs/regions.md). With a global table, an account's writes and guarding
   * reads go to its home region's replica, wherever the request arrived, so
   * the table actions are granted on the replicas of the other regions too
   * (same name, their region in the ARN); with independent regions, on none.
   */
  useRegions(tableName: string, regions: readonly string[], independent: boolean): void {
    this.function.addEnvironment('DEPLOYMENT_REGIONS', regions.join(','));
    this.function.addEnvironment('REGION_MODE', independent ? 'independent' : 'home');
    const stack = Stack.of(this);
    const others = regions.filter((region) => region !== stack.region);
    if (independent || others.length === 0 || this.tableActions.length === 0) return;
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: this.tableActions.map((action) => `dynamodb:${action}`),
        resources: others.map((region) => replicaArn(stack, region, tableName)),
      }),
    );
  }

  /**
   * On every identity of this account and region; SendEmail also on the
   * configuration sets it may name, the stack's and its tracking sibling
   * (SES authorizes a send on both).
   */
  private grantSes(actions: readonly SesAction[], configurationSet: string | undefined): void {
    if (actions.length === 0) return;
    const stack = Stack.of(this);
    const identities = stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
    this.function.addToRolePolicy(new PolicyStatement({ actions: actions.map((action) => `ses:${action}`), resources: [identities] }));
    if (configurationSet && actions.includes('SendEmail')) {
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: configurationSetsOf(configurationSet).map((name) =>
            stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name }),
          ),
        }),
      );
    }
    acknowledgeFindings(this, {
      [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:identity/*]`]:
        'Sending domains are added at run time by each account (POST /api/domains), so no identity is known at deploy time; the grant stays within this account and region',
    });
  }
}
