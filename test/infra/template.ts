/**
 * Reading a synthesized template the way the infra tests ask about it: which
 * function a route reaches, and what a function's role may do, as flat
 * (action, resource) pairs that compare as sets whatever the statement layout.
 *
 * A regional stack keeps its endpoints in nested stacks (lib/api.ts), so the
 * tests read it flattened (`templateOf`): the nested templates' resources
 * beside the parent's, each reference to a nested stack's parameter replaced
 * by the value the parent passes it, and each parent reference to a nested
 * stack's output by that output's value. Every value is then written as the
 * parent would write it, and `stack.resolve(token)` compares with it.
 */
import { App, NestedStack, type AppProps, type Stack } from 'aws-cdk-lib';
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

type Synthesized = ReturnType<typeof synthesizeApp>;

/**
 * Both regional stacks with bundling skipped: the tests read templates, not
 * code. One synthesis per context in each test process: a synthesis costs
 * seconds of CPU, a dozen files ask for the default one, and the files of a
 * shared worker (vitest.config.ts) reuse it. Callers only read what it answers.
 */
export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const key = JSON.stringify(context);
  let synthesized = synthesizedByContext.get(key);
  if (!synthesized) {
    synthesized = synthesizeApp(context);
    synthesizedByContext.set(key, synthesized);
  }
  return synthesized;
}

const synthesizedByContext = new Map<string, Synthesized>();

/**
 * An app as the template tests build it, without the parts of a synthesis
 * they never read: bundling (they read templates, not code), the stack trace
 * of every construct's creation, and CDK's built-in template validation (a
 * WebAssembly engine: together, half a synthesis's CPU). The validation runs
 * on every documented context in test/infra/nag.test.ts, which turns it on in `props`.
 */
export function testApp(context: Record<string, unknown> = {}, props: AppProps = {}): App {
  return new App({
    builtinCloudFormationValidation: false,
    stackTraces: false,
    ...props,
    context: { 'aws:cdk:bundling-stacks': [], 'aws:cdk:disable-creation-stack-traces': true, ...context },
  });
}

function synthesizeApp(context: Record<string, unknown>) {
  const app = testApp(context);
  const stacks = addRegionalStacks(app);
  return {
    settings: readSettings(app.node),
    stacks: stacks.map((stack) => ({ stack, template: templateOf(stack), parts: partsOf(stack) })),
  };
}

/** The stacks nested in `stack`, at any depth, parents before their children. */
export function nestedStacksOf(stack: Stack): NestedStack[] {
  return stack.node.findAll().filter((node): node is NestedStack => NestedStack.isNestedStack(node));
}

/** The stack and each nested stack as CloudFormation deploys it, one template apiece (each has CloudFormation's limits). */
export function partsOf(stack: Stack): { path: string; resources: Resources }[] {
  return [stack, ...nestedStacksOf(stack)].map((part) => ({ path: part.node.path, resources: resourcesOf(Template.fromStack(part)) }));
}

type Json = Record<string, any>;

/** `value` with every node `replace` answers for replaced (and its answer walked in turn). */
function rewrite(value: unknown, replace: (node: Json) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, replace));
  if (value === null || typeof value !== 'object') return value;
  const replaced = replace(value as Json);
  if (replaced !== undefined) return rewrite(replaced, replace);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item, replace)]));
}

/**
 * The stack's template with its nested stacks' resources merged in, their
 * parameters and outputs resolved to the parent's values (see the top of
 * this file). Fails on a logical id two of the templates share.
 */
export function templateOf(stack: Stack): Template {
  const flat = Template.fromStack(stack).toJSON() as Json;
  const resources: Resources = { ...flat.Resources };
  const outputs = new Map<string, Json>();
  for (const nested of nestedStacksOf(stack)) {
    const parentStack = nested.nestedStackParent!;
    const stackId = parentStack.resolve(nested.nestedStackResource!.logicalId) as string;
    const template = Template.fromStack(nested).toJSON() as Json;
    const parameters = (resources[stackId]?.Properties.Parameters ?? {}) as Json;
    const own = (node: Json) =>
      typeof node.Ref === 'string' && node.Ref in parameters && node.Ref in (template.Parameters ?? {}) ? parameters[node.Ref] : undefined;
    for (const [id, resource] of Object.entries(template.Resources as Resources)) {
      if (id in resources) throw new Error(`Logical id ${id} of ${nested.node.path} is also in another template of ${stack.stackName}`);
      resources[id] = rewrite(resource, own) as Resource;
    }
    outputs.set(stackId, Object.fromEntries(Object.entries((template.Outputs ?? {}) as Json).map(([name, output]) => [name, rewrite(output.Value, own)])));
  }
  const output = (node: Json) => {
    const [id, attribute] = (node['Fn::GetAtt'] ?? []) as [string?, string?];
    if (!id || !attribute?.startsWith('Outputs.') || !outputs.has(id)) return undefined;
    const value = outputs.get(id)![attribute.slice('Outputs.'.length)];
    if (value === undefined) throw new Error(`No output ${attribute} in the nested stack ${id}`);
    return value;
  };
  return Template.fromJSON({ ...flat, Resources: rewrite(resources, output), Outputs: rewrite(flat.Outputs ?? {}, output) } as Json);
}

export function resourcesOf(template: Template): Resources {
  return template.toJSON().Resources as Resources;
}

export function ofType(resources: Resources, type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/**
 * The functions built from functions/ (described `Postlane functions/<handler>.ts`),
 * without CDK's own helpers: AwsCustomResource's provider, which looks up a
 * replica's stream ARN at deploy time (lib/event-fan-out.ts).
 */
export function postlaneFunctions(resources: Resources): [string, Resource][] {
  return ofType(resources, 'AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties.Description ?? '').startsWith('Postlane functions/'));
}

/** The roles of CDK's helper functions (see postlaneFunctions), which AWS's basic execution policy serves. */
export function helperRoleIds(resources: Resources): Set<string> {
  const ours = new Set(postlaneFunctions(resources).map(([id]) => id));
  return new Set(
    ofType(resources, 'AWS::Lambda::Function')
      .filter(([id]) => !ours.has(id))
      .map(([, fn]) => referencedId(fn.Properties.Role)),
  );
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
  return rolePermissionsOf(stack, resources, referencedId(resources[functionId]!.Properties.Role));
}

/** `action resource` strings, one per pair any inline policy on the role allows (a service's role, such as EventBridge Scheduler's). */
export function rolePermissionsOf(stack: Stack, resources: Resources, roleId: string): Set<string> {
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
