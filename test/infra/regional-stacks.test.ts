import { describe, expect, it } from 'vitest';
import { configurationSetsOf } from '#shared/sending/tracking.ts';
import { App, ArnFormat } from 'aws-cdk-lib';
import { createTableInput, GLOBAL_INDEXES, TTL_ATTRIBUTE } from '#shared/platform/dynamodb/table.ts';
import { edgeRoutes, FALLBACK_HANDLER, isAuthenticated, KEYED_ROUTE_TABLE_ACTIONS, PREFLIGHT_HANDLER, type QueueName } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';
import { readSettings } from '../../lib/app.ts';
import { linkSigningSecretName, type RegionalStack } from '../../lib/regional-stack.ts';
import { secretArnForPolicies } from '../../lib/endpoint-function.ts';
import { EVENT_FUNCTIONS } from '../../lib/feedback.ts';
import { EXPORT_WORKER } from '../../lib/exports.ts';
import {
  functionOfRoute,
  helperRoleIds,
  logPairs,
  ofType,
  postlaneFunctions,
  pair,
  permissionsOf,
  referencedId,
  resourcesOf,
  synthesize,
  tablePairs,
  type Resources,
} from './template.ts';

/** CloudFormation refuses stacks over 500 resources; fail while there is still room to split. */
const RESOURCE_BUDGET = 400;

const { settings, stacks } = synthesize();
const [home, replica] = stacks;

function functionIdOf(resources: Resources, handler: string): string {
  const matches = ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Description === `Postlane functions/${handler}.ts`);
  expect(matches, `functions for ${handler}`).toHaveLength(1);
  return matches[0]![0];
}

/** Expected from the route table alone, independently of lib/api.ts. */
function expectedPermissions(stack: RegionalStack, resources: Resources, functionId: string, handler: string): Set<string> {
  const routes = ROUTES.filter((route) => route.handler === handler);
  const actions = new Set([
    ...routes.flatMap((route) => [...route.table, ...(isAuthenticated(route) ? KEYED_ROUTE_TABLE_ACTIONS : [])]),
    ...Object.values(EVENT_FUNCTIONS)
      .filter((fn) => fn.handler === handler)
      .flatMap((fn) => fn.table),
  ]);
  const sesActions = new Set(routes.flatMap((route) => ('ses' in route ? route.ses : [])));
  // SES's account-level suppression list takes no resource but `*`.
  const accountSesActions = Object.values(EVENT_FUNCTIONS)
    .filter((fn) => fn.handler === handler)
    .flatMap((fn) => ('ses' in fn ? fn.ses : []));
  const readsSecret = routes.some((route) => route.secrets?.includes('linkSigning') === true);
  const queueArns: Record<QueueName, string> = {
    retry: stack.retryQueue.queue.queueArn,
    webhooks: stack.webhooks.queue.queueArn,
    webhooksSlow: stack.webhooks.slowLane.queue.queueArn,
    broadcast: stack.broadcasts.queue.queueArn,
    export: stack.exports.queue.queueArn,
  };
  const queues = new Set(routes.flatMap((route) => route.queues ?? []));
  const scheduleActions = [...new Set(routes.flatMap((route) => route.scheduler ?? []))];
  const scheduleArn = stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: 'default/acc_*', arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  const attachments = new Set(routes.flatMap((route) => ('attachments' in route ? route.attachments : [])));
  const { bucket } = stack.attachments;
  return new Set([
    ...logPairs(stack, resources, functionId),
    ...accountSesActions.map((action) => pair(stack, `ses:${action}`, '*')),
    ...tablePairs(stack, actions, settings),
    ...(actions.has('Query') ? GLOBAL_INDEXES.map((index) => pair(stack, 'dynamodb:Query', `${stack.table.tableArn}/index/${index.indexName}`)) : []),
    ...[...sesActions].map((action) => pair(stack, `ses:${action}`, stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }))),
    // A send names the stack's configuration set or its tracking sibling, and SES authorizes it on that set too: only those.
    ...(sesActions.has('SendEmail')
      ? configurationSetsOf(stack.feedback.configurationSet.configurationSetName).map((name) =>
          pair(stack, 'ses:SendEmail', stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name })),
        )
      : []),
    ...(readsSecret ? [pair(stack, 'secretsmanager:GetSecretValue', secretArnForPolicies(stack, linkSigningSecretName(settings.tableName)))] : []),
    ...[...queues].map((queue) => pair(stack, 'sqs:SendMessage', queueArns[queue])),
    // Broadcasts' schedules, by name, and handing Scheduler its one role.
    ...scheduleActions.map((action) => pair(stack, `scheduler:${action}`, scheduleArn)),
    ...(scheduleActions.some((action) => action !== 'DeleteSchedule') ? [pair(stack, 'iam:PassRole', stack.broadcasts.schedulerRole.roleArn)] : []),
    ...(attachments.has('upload') ? [pair(stack, 's3:PutObject', bucket.arnForObjects('*'))] : []),
    ...(attachments.has('read') ? [pair(stack, 's3:GetObject', bucket.arnForObjects('*')), pair(stack, 's3:ListBucket', bucket.bucketArn)] : []),
    ...(attachments.has('queue') ? [pair(stack, 's3:PutObject', bucket.arnForObjects('queued/*'))] : []),
    ...(attachments.has('export')
      ? [
          pair(stack, 's3:PutObject', bucket.arnForObjects('exports/*')),
          pair(stack, 's3:GetObject', bucket.arnForObjects('exports/*')),
          pair(stack, 's3:ListBucket', bucket.bucketArn),
        ]
      : []),
    ...(attachments.has('signExport') ? [pair(stack, 's3:GetObject', bucket.arnForObjects('exports/*')), pair(stack, 's3:ListBucket', bucket.bucketArn)] : []),
    ...(attachments.has('storeContent') ? [pair(stack, 's3:PutObject', bucket.arnForObjects('content/*'))] : []),
    ...(attachments.has('readContent') ? [pair(stack, 's3:GetObject', bucket.arnForObjects('content/*')), pair(stack, 's3:ListBucket', bucket.bucketArn)] : []),
  ]);
}

describe('the CDK app', () => {
  it('makes one stack per configured region, pinned to that region', () => {
    expect(stacks.map(({ stack }) => [stack.stackName, stack.region])).toEqual(settings.regions.map((region) => [`Postlane-prod-${region}`, region]));
  });

  it('deploys the replica regions after the region that creates the global table', () => {
    expect(replica!.stack.dependencies).toContain(home!.stack);
    expect(home!.stack.dependencies).toEqual([]);
  });
});

describe.each(stacks.map(({ stack, template, parts }) => [stack.stackName, stack, template, parts] as const))('%s', (_name, stack, template, parts) => {
  const resources = resourcesOf(template);
  const routes = ofType(resources, 'AWS::ApiGatewayV2::Route').map(([, route]) => route);
  const functions = postlaneFunctions(resources);
  const handlers = [
    ...new Set<string>([
      ...ROUTES.map((route) => route.handler),
      FALLBACK_HANDLER,
      PREFLIGHT_HANDLER,
      ...Object.values(EVENT_FUNCTIONS).map((fn) => fn.handler),
    ]),
  ];

  it('has one API route per route table entry, its HEAD twin and CORS preflight, reaching the function built from its handler', () => {
    for (const entry of edgeRoutes(ROUTES)) {
      const matching = routes.filter((route) => route.Properties.RouteKey === `${entry.method} ${entry.path}`);
      expect(matching, `${entry.method} ${entry.path}`).toHaveLength(1);
      expect(functionOfRoute(resources, matching[0]!)).toBe(functionIdOf(resources, entry.handler));
    }
    expect(routes).toHaveLength(edgeRoutes(ROUTES).length + 1);
  });

  it('sends every unmatched request to the fallback function on $default', () => {
    const fallback = routes.filter((route) => route.Properties.RouteKey === '$default');
    expect(fallback).toHaveLength(1);
    expect(functionOfRoute(resources, fallback[0]!)).toBe(functionIdOf(resources, FALLBACK_HANDLER));
  });

  it('hands the handlers the v2 payload they are typed for', () => {
    for (const [, integration] of ofType(resources, 'AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('builds exactly one function per handler module, on nodejs24.x arm64 with the table name', () => {
    // And the workers of the feedback, retry, webhook, broadcast and export queues and the event fan-out (ses-feedback, retry-queue, webhooks, broadcasts, exports, event-fan-out tests).
    expect(functions).toHaveLength(handlers.length + 6);
    for (const [, fn] of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: { Variables: { TABLE_NAME: stack.resolve(stack.table.tableName) } },
      });
      // Below API Gateway's 29 s; the export worker alone runs longer, off any request (test/infra/exports.test.ts).
      if (fn.Properties.Description !== `Postlane functions/${EXPORT_WORKER.handler}.ts`) expect(fn.Properties.Timeout).toBeLessThan(29);
    }
  });

  it("keeps every function's logs for a bounded time", () => {
    for (const [, fn] of functions) {
      const logGroup = resources[referencedId(fn.Properties.LoggingConfig.LogGroup)]!;
      expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it.each(handlers)('grants %s exactly the permissions its routes declare', (handler) => {
    const functionId = functionIdOf(resources, handler);
    expect(permissionsOf(stack, resources, functionId)).toEqual(expectedPermissions(stack, resources, functionId, handler));
  });

  it('names the link-signing secret to exactly the functions that read it', () => {
    for (const handler of handlers) {
      const readsSecret = ROUTES.some((route) => route.handler === handler && route.secrets?.includes('linkSigning') === true);
      const variables = resources[functionIdOf(resources, handler)]!.Properties.Environment.Variables;
      expect(variables.SIGNING_SECRET_PARAMETER, handler).toBe(readsSecret ? linkSigningSecretName(settings.tableName) : undefined);
    }
  });

  it('names the attachments bucket to exactly the functions that use it', () => {
    for (const handler of handlers) {
      const usesBucket = ROUTES.some((route) => route.handler === handler && 'attachments' in route);
      const variables = resources[functionIdOf(resources, handler)]!.Properties.Environment.Variables;
      expect(variables.ATTACHMENTS_BUCKET, handler).toEqual(usesBucket ? stack.resolve(stack.attachments.bucket.bucketName) : undefined);
    }
    expect(ROUTES.filter((route) => 'attachments' in route).map((route) => [route.handler, route.attachments])).toEqual([
      ['audiences/export', ['export']],
      ['audiences/get-export', ['signExport']],
      ['email/send', ['read', 'queue', 'storeContent']],
      ['email/batch', ['read', 'queue', 'storeContent']],
      ['attachments/create', ['upload']],
      ['otp/send', ['queue', 'storeContent']],
      ['otp/send', ['queue', 'storeContent']],
      ['transactional/send', ['queue', 'storeContent']],
      ['emails/content', ['readContent']],
      ['forms/submit', ['queue', 'storeContent']],
      ['broadcasts/test', ['storeContent']],
    ]);
  });

  it('keeps attachment uploads in a private, encrypted, HTTPS-only bucket that removes each a day after it was made, and the content of emails after the retention days', () => {
    // The other bucket holds the dashboard (test/infra/dashboard-site.test.ts).
    const buckets = ofType(resources, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('AttachmentsBucket'));
    expect(buckets).toHaveLength(1);
    const [bucketId, bucket] = buckets[0]!;
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: expect.arrayContaining([
          { Id: 'uploads', Prefix: 'acc_', ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
          { Id: 'exports', Prefix: 'exports/', ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
          // An email's content lives as long as its record: RETENTION_DAYS (30 by default).
          { Id: 'email-content', Prefix: 'content/', ExpirationInDays: 30, Status: 'Enabled' },
        ]),
      },
      CorsConfiguration: { CorsRules: [{ AllowedMethods: ['PUT'], AllowedOrigins: ['*'], AllowedHeaders: ['content-type'] }] },
    });
    const policies = ofType(resources, 'AWS::S3::BucketPolicy').filter(([, policy]) => referencedId(policy.Properties.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    expect(policies[0]![1].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('grants no wildcard actions and no managed policies', () => {
    for (const [, policy] of ofType(resources, 'AWS::IAM::Policy')) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        for (const action of [statement.Action].flat()) expect(action).not.toMatch(/\*/);
      }
    }
    const helperRoles = helperRoleIds(resources);
    for (const [id, role] of ofType(resources, 'AWS::IAM::Role')) if (!helperRoles.has(id)) expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
  });

  it(`stays under ${RESOURCE_BUDGET} resources, and so does each of its nested stacks`, () => {
    // The parent and one nested stack per API area with endpoints (lib/api.ts).
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Object.keys(part.resources).length, part.path).toBeLessThan(RESOURCE_BUDGET);
  });
});

describe('the global table', () => {
  const expected = createTableInput(settings.tableName);

  it('is created once, in the first region, from shared/platform/dynamodb/table.ts', () => {
    home!.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    home!.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        TableName: settings.tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: expected.KeySchema,
        AttributeDefinitions: expected.AttributeDefinitions,
        GlobalSecondaryIndexes: expected.GlobalSecondaryIndexes,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      },
    });
    replica!.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
  });

  it('has a replica in every region, each with point-in-time recovery and deletion protection', () => {
    const [, table] = ofType(resourcesOf(home!.template), 'AWS::DynamoDB::GlobalTable')[0]!;
    const replicas = table.Properties.Replicas as Array<Record<string, unknown>>;
    expect(replicas.map((entry) => entry.Region).sort()).toEqual([...settings.regions].sort());
    for (const entry of replicas) {
      expect(entry).toMatchObject({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    }
  });

  it('has a generated link-signing key beside it, replicated to the same regions and kept on stack deletion', () => {
    const secrets = linkSigningSecrets(resourcesOf(home!.template));
    expect(secrets).toHaveLength(1);
    const [, secret] = secrets[0]!;
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(secret.Properties).toMatchObject({
      Name: linkSigningSecretName(settings.tableName),
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
      ReplicaRegions: settings.regions.slice(1).map((region) => ({ Region: region })),
    });
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(linkSigningSecrets(resourcesOf(replica!.template))).toEqual([]);
  });

  it('is reached in the other regions through the local replica, by name', () => {
    expect(replica!.stack.resolve(replica!.stack.table.tableArn)).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:${replica!.stack.region}:`, { Ref: 'AWS::AccountId' }, `:table/${settings.tableName}`]],
    });
  });
});

describe('with postlane:independentRegions', () => {
  const independent = synthesize({ 'postlane:independentRegions': 'true' });

  it('gives every region its own table with no replica elsewhere and no deploy order', () => {
    for (const { stack, template } of independent.stacks) {
      const tables = ofType(resourcesOf(template), 'AWS::DynamoDB::GlobalTable');
      expect(tables).toHaveLength(1);
      const replicas = tables[0]![1].Properties.Replicas as Array<Record<string, unknown>>;
      expect(replicas.map((entry) => entry.Region)).toEqual([stack.region]);
      expect(replicas[0]).toMatchObject({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true });
      expect(stack.dependencies).toEqual([]);
      const secrets = linkSigningSecrets(resourcesOf(template));
      expect(secrets).toHaveLength(1);
      expect(secrets[0]![1].Properties.ReplicaRegions).toBeUndefined();
    }
  });

  it("tells every function so, and grants none of them another region's table: data stays in its home region", () => {
    for (const { stack, template } of independent.stacks) {
      const resources = resourcesOf(template);
      for (const [id, fn] of postlaneFunctions(resources)) {
        expect(fn.Properties.Environment.Variables).toMatchObject({ DEPLOYMENT_REGIONS: independent.settings.regions.join(','), REGION_MODE: 'independent' });
        const tableArns = [...permissionsOf(stack, resources, id)]
          .filter((entry) => entry.startsWith('dynamodb:'))
          .map((entry) => entry.slice(entry.indexOf(' ') + 1));
        for (const other of independent.settings.regions.filter((region) => region !== stack.region)) {
          for (const arn of tableArns) expect(arn, fn.Properties.Description).not.toContain(`:dynamodb:${other}:`);
        }
      }
    }
  });
});

describe('home regions (global table)', () => {
  it("tell every function the deployment's regions, first the default home, and route by home", () => {
    for (const { template } of stacks) {
      for (const [, fn] of postlaneFunctions(resourcesOf(template))) {
        expect(fn.Properties.Environment.Variables).toMatchObject({ DEPLOYMENT_REGIONS: settings.regions.join(','), REGION_MODE: 'home' });
      }
    }
  });
});

/** The link-signing key, beside the origin-verify secret every stack has (lib/dashboard-site.ts). */
function linkSigningSecrets(resources: Resources) {
  return ofType(resources, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('LinkSigningSecret'));
}

/** The names a stage's resources take in the account, as CloudFormation will create them. */
function physicalNames(synthesized: ReturnType<typeof synthesize>): string[] {
  return synthesized.stacks.flatMap(({ stack, template }) => {
    const resources = resourcesOf(template);
    // A resource without a name of ours (the origin-verify secret) gets a unique one from CloudFormation.
    const named = (type: string, property: string) =>
      ofType(resources, type)
        .filter(([, resource]) => resource.Properties[property] !== undefined)
        .map(([, resource]) => JSON.stringify(stack.resolve(resource.Properties[property])));
    return [
      stack.stackName,
      ...named('AWS::DynamoDB::GlobalTable', 'TableName'),
      ...named('AWS::SecretsManager::Secret', 'Name'),
      ...named('AWS::SQS::Queue', 'QueueName'),
      ...named('AWS::S3::Bucket', 'BucketName'),
      // The table and secret every function is pointed at, created here or not.
      ...postlaneFunctions(resources)
        .flatMap(([, fn]) => [fn.Properties.Environment.Variables.TABLE_NAME, fn.Properties.Environment.Variables.SIGNING_SECRET_PARAMETER])
        .filter((name): name is string => typeof name === 'string')
        .map((name) => JSON.stringify(name)),
    ];
  });
}

describe('stages', () => {
  // A second deployment in the same account, redeployed after `cdk destroy` kept its table and secret.
  const staging = synthesize({ 'postlane:stage': 'staging', 'postlane:useRetainedData': 'true' });

  it('default to prod, whose name every stack, table, secret, queue and bucket carries', () => {
    expect(settings).toMatchObject({ stage: 'prod', tableName: 'postlane-prod', useRetainedData: false });
    const names = physicalNames({ settings, stacks });
    expect(names.filter((name) => !/[Pp]ostlane-prod/.test(name))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        'Postlane-prod-us-east-1',
        'Postlane-prod-eu-west-1',
        '"postlane-prod"',
        '"postlane-prod/link-signing"',
        '"postlane-prod-retry"',
        '"postlane-prod-retry-dlq"',
      ]),
    );
  });

  it('give a second stage names of its own, so both deploy to one account and region', () => {
    const prod = new Set(physicalNames({ settings, stacks }));
    const names = physicalNames(staging);
    expect(names.filter((name) => !/[Pp]ostlane-staging/.test(name))).toEqual([]);
    expect(names.filter((name) => prod.has(name))).toEqual([]);
    expect(staging.stacks.map(({ stack }) => stack.stackName)).toEqual(['Postlane-staging-us-east-1', 'Postlane-staging-eu-west-1']);
    // Bucket names are global: the account and region make them unique beyond the stage.
    const buckets = ofType(resourcesOf(staging.stacks[0]!.template), 'AWS::S3::Bucket').map(([, bucket]) =>
      staging.stacks[0]!.stack.resolve(bucket.Properties.BucketName),
    );
    expect(buckets).toEqual(
      expect.arrayContaining([
        { 'Fn::Join': ['', ['postlane-staging-', { Ref: 'AWS::AccountId' }, '-us-east-1']] },
        { 'Fn::Join': ['', ['postlane-staging-app-', { Ref: 'AWS::AccountId' }, '-us-east-1']] },
      ]),
    );
  });

  it('with postlane:useRetainedData, use the retained table and secret by name instead of creating them', () => {
    for (const { stack, template } of staging.stacks) {
      const resources = resourcesOf(template);
      expect(ofType(resources, 'AWS::DynamoDB::GlobalTable')).toEqual([]);
      expect(linkSigningSecrets(resources)).toEqual([]);
      const send = functionIdOf(resources, 'email/send');
      expect([...permissionsOf(stack, resources, send)]).toEqual(
        expect.arrayContaining([
          pair(stack, 'dynamodb:PutItem', stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: 'postlane-staging' })),
          pair(stack, 'secretsmanager:GetSecretValue', secretArnForPolicies(stack, 'postlane-staging/link-signing')),
        ]),
      );
    }
  });

  it('refuse a stage that cannot be part of a bucket name', () => {
    expect(() => readSettings(new App({ context: { 'postlane:stage': 'Staging' } }).node)).toThrow(/postlane:stage/);
    expect(() => readSettings(new App({ context: { 'postlane:stage': 'a-very-long-stage-name' } }).node)).toThrow(/postlane:stage/);
  });
});

describe('context settings', () => {
  const read = (context: Record<string, unknown>) => readSettings(new App({ context }).node);

  it('default to the regions cdk.json lists', async () => {
    const { default: cdkJson } = await import('../../cdk.json', { with: { type: 'json' } });
    expect(read({}).regions).toEqual(cdkJson.context['postlane:regions']);
  });

  it('accept the string forms `cdk -c` passes', () => {
    expect(read({ 'postlane:regions': 'eu-central-1, eu-west-1', 'postlane:independentRegions': 'true' })).toMatchObject({
      regions: ['eu-central-1', 'eu-west-1'],
      independentRegions: true,
    });
  });

  it('refuse a region listed twice or a name that is no region', () => {
    expect(() => read({ 'postlane:regions': ['eu-west-1', 'eu-west-1'] })).toThrow(/distinct AWS regions/);
    expect(() => read({ 'postlane:regions': 'Europe' })).toThrow(/distinct AWS regions/);
  });
});

describe('postlane:mailFrom', () => {
  it('gives every function the sender of sign-in codes and invitations; a value that is no address is refused; without it, none', () => {
    const withSender = synthesize({ 'postlane:mailFrom': 'Acme <no-reply@mail.acme.example>' });
    const senders = (synthesized: Pick<typeof withSender, 'stacks'>) =>
      new Set(
        ofType(resourcesOf(synthesized.stacks[0]!.template), 'AWS::Lambda::Function')
          .filter(([, fn]) => fn.Properties.Description?.startsWith('Postlane functions/'))
          .map(([, fn]) => fn.Properties.Environment.Variables.SERVICE_MAIL_FROM),
      );

    expect(senders(withSender)).toEqual(new Set(['Acme <no-reply@mail.acme.example>']));
    expect(senders({ stacks })).toEqual(new Set([undefined]));
    expect(() => readSettings(new App({ context: { 'postlane:mailFrom': 'not an address' } }).node)).toThrow(/postlane:mailFrom/);
  });
});
