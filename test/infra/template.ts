/**
 * Reading a synthesized template the way the infra tests ask about it: which
 * function a route reaches, and what a function's role may do, as flat
 * (action, resource) pairs that compare as sets whatever the statement layout.
 */
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addRegionalStacks, readSettings } from '../../lib/app.ts';
import { replicaArn } from '../../lib/endpoint-function.ts';
import type { RegionalStack } from '../../lib/regional-stack.ts';

export interface Resource {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
}

export type Resources = Record<string, Resource>;

/** Both regional stacks with bundling skipped: the tests read templates, not code. */
export function synthesize(context: Record<string, unknown> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stacks = addRegionalStacks(app);
  return {
    settings: readSettings(app.node),
    stacks: stacks.map((stack) => ({ stack, template: Template.fromStack(stack) })),
  };
}

export function resourcesOf(template: Template): Resources {
  return template.toJSON().Resources as Resources;
}

export function ofType(resources: Resources, type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The logical id a `{Ref}` or `{Fn::GetAtt: [id, attribute]}` points at. */
export function referencedId(value: unknown): string {
  const reference = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = reference.Ref ?? reference['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`Not a reference: ${JSON.stringify(value)}`);
  return id;
}

/** The function a route's `integrations/<id>` target invokes. */
export function functionOfRoute(resources: Resources, route: Resource): string {
  const [, parts] = route.Properties.Target['Fn::Join'] as [string, unknown[]];
  const integration = resources[referencedId(parts[1])]!;
  return referencedId(integration.Properties.IntegrationUri);
}

/** `action resource` strings, one per pair any inline policy on the function's role allows. */
export function permissionsOf(stack: Stack, resources: Resources, functionId: string): Set<string> {
  const roleId = referencedId(resources[functionId]!.Properties.Role);
  const pairs = new Set<string>();
  for (const [, policy] of ofType(resources, 'AWS::IAM::Policy')) {
    if (!policy.Properties.Roles.some((role: unknown) => referencedId(role) === roleId)) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement) {
      for (const action of [statement.Action].flat()) {
        for (const resource of [statement.Resource].flat()) pairs.add(pair(stack, action, resource));
      }
    }
  }
  return pairs;
}

/** A pair as `permissionsOf` writes it; `resource` may be a token, resolved as the template shows it. */
export function pair(stack: Stack, action: string, resource: unknown): string {
  return `${action} ${JSON.stringify(stack.resolve(resource))}`;
}

/** What every function's role holds for its own log group, and for no other. */
export function logPairs(stack: Stack, resources: Resources, functionId: string): string[] {
  const logGroupArn = { 'Fn::GetAtt': [referencedId(resources[functionId]!.Properties.LoggingConfig.LogGroup), 'Arn'] };
  return [pair(stack, 'logs:CreateLogStream', logGroupArn), pair(stack, 'logs:PutLogEvents', logGroupArn)];
}

/**
 * `dynamodb:<action> <table>` for each action, on the stack's table and, with a
 * global table, on the other regions' replicas too, where an account's home
 * region may be (docs/regions.md).
 */
export function tablePairs(stack: RegionalStack, actions: Iterable<string>, settings: { regions: readonly string[]; tableName: string }): string[] {
  const others = settings.regions.filter((region) => region !== stack.region);
  return [...actions].flatMap((action) =>
    [stack.table.tableArn, ...others.map((region) => replicaArn(stack, region, settings.tableName))].map((arn) => pair(stack, `dynamodb:${action}`, arn)),
  );
}
