/**
 * The deployed functions as AWS runs them, for the bundle suite: every
 * function's esbuild output (lib/bundling.ts, as `cdk synth` builds it), each
 * in a Node process of its own (test/bundles/lambda-runtime.mjs) with the
 * environment variables the synthesized stack gives that function, its AWS
 * calls going through a gateway of its own (test/bundles/aws-gateway.ts) to
 * the local stack the tests started.
 *
 * The bundles and the stack's environments are built once per change of the
 * sources, into .data/bundles/<hash of the sources>/, so a run whose sources
 * did not change since the last one builds nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { buildHttpApiEvent, routeRequest, toHttpResult, type HttpResult } from '#dev/local/http-event.ts';
import { config } from '#shared/platform/config.ts';
import { bundleFunctions, handlerModules } from '../../lib/bundling.ts';
import { CHECKED_CONTEXT } from '../support/iam.ts';
import { newStandIns, startGateway, type Gateway, type StandIns } from './aws-gateway.ts';
import { startTxtServer, type TxtServer } from './dns.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, '.data', 'bundles');
/** What a bundle or a function's environment depends on. */
const SOURCES = ['functions', 'shared', 'lib', 'package-lock.json', 'cdk.json'];

function sourceHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
    } else {
      hash.update(path.slice(ROOT.length)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const source of SOURCES) add(join(ROOT, source));
  return hash.digest('hex').slice(0, 16);
}

/** A deployed function's environment variables as the template writes them: a literal, or a reference to a resource. */
type DeployedEnvironment = Record<string, string | { reference: string }>;

/** Each function's environment in the synthesized stack (the first region, with every option that adds a grant on). */
async function deployedEnvironments(): Promise<Record<string, DeployedEnvironment>> {
  const { resourcesOf, synthesize } = await import('../infra/template.ts');
  const [first] = synthesize(CHECKED_CONTEXT).stacks;
  const environments: Record<string, DeployedEnvironment> = {};
  for (const resource of Object.values(resourcesOf(first!.template))) {
    const handler = /^Postlane functions\/(.+)\.ts$/.exec(resource.Properties.Description ?? '')?.[1];
    if (resource.Type !== 'AWS::Lambda::Function' || !handler) continue;
    environments[handler] = Object.fromEntries(
      Object.entries(resource.Properties.Environment?.Variables ?? {}).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : { reference: JSON.stringify(value) },
      ]),
    );
  }
  return environments;
}

export interface Built {
  directory: string;
  environments: Record<string, DeployedEnvironment>;
}

let built: Built | undefined;

/** Every function bundled, and the stack's environments, from the cache when the sources are unchanged. */
export async function builtFunctions(): Promise<Built> {
  if (built) return built;
  const hash = sourceHash();
  const directory = join(CACHE, hash);
  if (!existsSync(join(directory, 'environments.json'))) {
    // Built beside, then renamed: another worker building the same sources at once loses nothing but time.
    const building = `${directory}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    await bundleFunctions(handlerModules().map((handler) => ({ handler, directory: join(building, handler) })));
    writeFileSync(join(building, 'environments.json'), JSON.stringify(await deployedEnvironments()));
    for (const stale of existsSync(CACHE) ? readdirSync(CACHE) : []) {
      if (stale !== hash && !stale.includes('.building-')) rmSync(join(CACHE, stale), { recursive: true, force: true });
    }
    try {
      renameSync(building, directory);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  built = { directory, environments: JSON.parse(readFileSync(join(directory, 'environments.json'), 'utf8')) as Built['environments'] };
  return built;
}

/** The bundle suite's names for what the deployed functions name: the local queues, table and bucket of this test file. */
const SES_CONFIGURATION_SET = 'postlane-bundle-suite';
export const LINK_SIGNING_SECRET = 'postlane-bundle-suite/link-signing';
/** The most contacts a bundle exports within its request: a larger audience goes to the export queue. */
export const BUNDLE_EXPORT_SYNC_MAX_CONTACTS = 2;

/**
 * A deployed variable's value here: the local counterpart of each resource
 * the stack names, the stack's own value for a setting. A variable the
 * stack adds that this table does not know fails the suite, so a new one is
 * mapped here rather than silently left out.
 */
function localValue(name: string, deployed: string | { reference: string }): string | undefined {
  const fromWorker: Partial<Record<string, string | undefined>> = {
    TABLE_NAME: config.TABLE_NAME,
    RETRY_QUEUE_URL: config.RETRY_QUEUE_URL,
    WEBHOOK_QUEUE_URL: config.WEBHOOK_QUEUE_URL,
    WEBHOOK_SLOW_QUEUE_URL: config.WEBHOOK_SLOW_QUEUE_URL,
    BROADCAST_QUEUE_URL: config.BROADCAST_QUEUE_URL,
    BROADCAST_QUEUE_ARN: config.BROADCAST_QUEUE_ARN,
    BROADCAST_SCHEDULER_ROLE_ARN: config.BROADCAST_SCHEDULER_ROLE_ARN,
    BROADCAST_SCHEDULE_DLQ_ARN: config.BROADCAST_SCHEDULE_DLQ_ARN,
    EXPORT_QUEUE_URL: config.EXPORT_QUEUE_URL,
    ATTACHMENTS_BUCKET: config.ATTACHMENTS_BUCKET,
    PUBLIC_BASE_URL: config.PUBLIC_BASE_URL,
    SES_CONFIGURATION_SET,
    SIGNING_SECRET_PARAMETER: LINK_SIGNING_SECRET,
    // What CloudFormation resolves the secret's dynamic reference to: generated text of 64 characters.
    ORIGIN_VERIFY_SECRET: 'o'.repeat(64),
    // One region locally: the replicas of the others are not here.
    DEPLOYMENT_REGIONS: config.AWS_REGION,
  };
  if (name in fromWorker) return fromWorker[name];
  if (['REGION_MODE', 'RETENTION_DAYS', 'CORS_ALLOWED_ORIGINS', 'EVENT_BUS_NAME'].includes(name) && typeof deployed === 'string') return deployed;
  throw new Error(`The stack gives a function ${name} (${JSON.stringify(deployed)}): say in test/bundles/support.ts what it is locally`);
}

/** A function's whole environment: the stack's variables, Lambda's credentials and region, and every AWS endpoint its gateway. */
function environmentOf(handler: string, deployed: DeployedEnvironment, gateway: string, dnsServer: string): NodeJS.ProcessEnv {
  const variables = Object.fromEntries(
    Object.entries(deployed).flatMap(([name, value]) => {
      const local = localValue(name, value);
      return local === undefined ? [] : [[name, local]];
    }),
  );
  return {
    ...variables,
    AWS_REGION: config.AWS_REGION,
    AWS_ACCESS_KEY_ID: 'ASIABUNDLESUITE',
    AWS_SECRET_ACCESS_KEY: 'bundle-suite',
    AWS_SESSION_TOKEN: 'bundle-suite',
    AWS_LAMBDA_FUNCTION_NAME: `postlane-${handler.replaceAll('/', '-')}`,
    // The configuration's local endpoints where it has one (DynamoDB's also allows webhook receivers on 127.0.0.1).
    DYNAMODB_ENDPOINT: gateway,
    SQS_ENDPOINT: gateway,
    S3_ENDPOINT: gateway,
    SCHEDULER_ENDPOINT: gateway,
    // The SDK's own variables for the clients that have none; SES's too, so domains take the path they take deployed.
    AWS_ENDPOINT_URL_SESV2: gateway,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: gateway,
    AWS_ENDPOINT_URL_EVENTBRIDGE: gateway,
    // A throttled message is retried at once, not after the deployed 10 s (shared/platform/config.ts: tests set 0).
    RETRY_BACKOFF_SECONDS: '0',
    // An audience of more than 2 contacts is exported on the queue, not the deployed 25,000 (shared/contacts/export-policy.ts), so the suite feeds the export worker a small one.
    EXPORT_SYNC_MAX_CONTACTS: String(BUNDLE_EXPORT_SYNC_MAX_CONTACTS),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    BUNDLE_SUITE_DNS_SERVER: dnsServer,
  };
}

interface Instance {
  child: ChildProcess;
  gateway: Gateway;
  /** What the function wrote (its log lines), for a failure's message. */
  output: string[];
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
}

/** The Node that runs the bundles: this one, or the binary BUNDLE_SUITE_NODE names (the Lambda runtime's version, to try one). */
const LAMBDA_NODE = process.env.BUNDLE_SUITE_NODE ?? process.execPath;

/** Instances kept warm at once: each is a Node process with the SDK loaded (about 60 MB). */
const WARM_INSTANCES = 4;

export interface Functions {
  standIns: StandIns;
  dns: TxtServer;
  /** Functions whose bundle ran at least once. */
  invoked: Set<string>;
  /** Runs `event` in the function's instance (started cold on first use); its result, or the error it threw. */
  invoke(handler: string, event: unknown): Promise<unknown>;
  /** An HTTP API request, routed as API Gateway routes it, answered by the bundle: `http('GET', '/api/contacts/…', { headers })`. */
  http(method: string, url: string, options?: { headers?: Record<string, string>; body?: string }): Promise<HttpResult & { handler: string }>;
  stop(): Promise<void>;
}

let messages = 0;

/** The suite's functions, with the stand-ins of the services the local stack lacks. */
export async function startFunctions(secret: () => Promise<string>): Promise<Functions> {
  const { directory, environments } = await builtFunctions();
  const standIns = newStandIns(secret);
  const dns = await startTxtServer();
  const upstreams = {
    dynamodb: inject('dynamodbEndpoint'),
    ses: inject('sesEndpoint'),
    sqs: inject('sqsEndpoint'),
    s3: inject('s3Endpoint'),
    scheduler: config.SCHEDULER_ENDPOINT!,
  };
  const warm = new Map<string, Promise<Instance>>();
  const invoked = new Set<string>();

  const stopInstance = async (instance: Instance) => {
    const exited = new Promise((resolve) => instance.child.once('exit', resolve));
    instance.child.kill();
    await exited;
    await instance.gateway.stop();
  };

  const start = async (handler: string): Promise<Instance> => {
    const deployed = environments[handler];
    if (!deployed) throw new Error(`The stack has no function functions/${handler}.ts`);
    const gateway = await startGateway({ handler, upstreams, standIns, linkSigningName: LINK_SIGNING_SECRET });
    const child = fork(join(import.meta.dirname, 'lambda-runtime.mjs'), [join(directory, handler, 'index.mjs'), handler], {
      env: environmentOf(handler, deployed, gateway.url, dns.address),
      execPath: LAMBDA_NODE,
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      cwd: join(directory, handler),
    });
    const instance: Instance = { child, gateway, output: [], pending: new Map() };
    for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding('utf8').on('data', (chunk: string) => instance.output.push(chunk));
    await new Promise<void>((ready, failed) => {
      child.once('exit', (code) => failed(new Error(`functions/${handler}.ts did not start (exit ${code}): ${instance.output.join('')}`)));
      child.on('message', (message: { ready?: true; id?: number; result?: unknown; error?: { name: string; message: string; stack: string } }) => {
        if (message.ready) return ready();
        const waiting = instance.pending.get(message.id!);
        instance.pending.delete(message.id!);
        if (message.error) waiting?.reject(Object.assign(new Error(`${message.error.name}: ${message.error.message}`), { stack: message.error.stack }));
        else waiting?.resolve(message.result);
      });
    });
    return instance;
  };

  const instanceOf = async (handler: string): Promise<Instance> => {
    let instance = warm.get(handler);
    if (instance) {
      // The most recently used last.
      warm.delete(handler);
    } else {
      instance = start(handler);
      if (warm.size >= WARM_INSTANCES) {
        const [coldest] = warm;
        warm.delete(coldest![0]);
        await stopInstance(await coldest![1]);
      }
    }
    warm.set(handler, instance);
    return instance;
  };

  const invoke = async (handler: string, event: unknown): Promise<unknown> => {
    const instance = await instanceOf(handler);
    invoked.add(handler);
    const id = ++messages;
    const answer = new Promise<unknown>((resolveAnswer, reject) => instance.pending.set(id, { resolve: resolveAnswer, reject }));
    instance.child.send({ id, event });
    try {
      return await answer;
    } catch (error) {
      throw Object.assign(error as Error, {
        message: `${(error as Error).message}\n--- functions/${handler}.ts wrote:\n${instance.output.join('').slice(-4000)}`,
      });
    }
  };

  return {
    standIns,
    dns,
    invoked,
    invoke,
    async http(method, url, options = {}) {
      const target = routeRequest(method, url.split('?')[0]!);
      const event: APIGatewayProxyEventV2 = buildHttpApiEvent(
        {
          method,
          url,
          headers: { host: 'api.bundle-suite.test', ...options.headers },
          ...(options.body === undefined ? {} : { body: Buffer.from(options.body) }),
        },
        target,
      );
      const result = await invoke(target.handler, event);
      return { ...toHttpResult(result as Parameters<typeof toHttpResult>[0]), handler: target.handler };
    },
    async stop() {
      await Promise.all([...warm.values()].map(async (instance) => stopInstance(await instance)));
      warm.clear();
      await dns.stop();
    },
  };
}
