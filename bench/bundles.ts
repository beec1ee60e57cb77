/**
 * Bundles every function exactly as the CDK stack does (lib/bundling.ts) and
 * reads each bundle's esbuild metafile: its size, and whether it carries a
 * heavy module the function never uses.
 */
import type { Metafile } from 'esbuild';
import { bundleFunctions, loadedAtStart } from '../lib/bundling.ts';
import { handlerModules, routesOf } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';

export interface Bundle {
  handler: string;
  /** The file Lambda loads. */
  file: string;
  /** Minified, as deployed: what Node reads at cold start (the entry and the chunks it imports statically). */
  bytes: number;
  /** The other chunks, read only when code reached by `import()` first runs. */
  chunkBytes: number;
  /** Every source file with code in it (after tree shaking). */
  inputs: string[];
  sendsMail: boolean;
}

/** Modules heavy enough to matter at cold start, each allowed only in functions that call it. */
export const HEAVY_MODULES = {
  'SES client': 'node_modules/@aws-sdk/client-sesv2/',
  liquidjs: 'node_modules/liquidjs/',
  'Secrets Manager client': 'node_modules/@aws-sdk/client-secrets-manager/',
  // Allowed nowhere: shared/platform/aws/s3.ts signs the upload URL and the read of an upload itself.
  'S3 client': 'node_modules/@aws-sdk/client-s3/',
  'SQS client': 'node_modules/@aws-sdk/client-sqs/',
  // Replaced in every bundle by shared/platform/aws/lambda-credentials.ts: no function needs SSO, ini files or STS.
  'default credential chain': 'node_modules/@aws-sdk/credential-provider-node/',
} as const;

export type HeavyModule = keyof typeof HEAVY_MODULES;

/**
 * Handlers that parse or render templates without sending: saving a template
 * checks its syntax with the same engine that renders it, the render
 * endpoint renders a preview, and saving a broadcast renders its content
 * once to refuse what a send would refuse (shared/broadcasts/service.ts).
 */
export const TEMPLATE_ENGINE_HANDLERS: readonly string[] = [
  'templates/create',
  'templates/update',
  'templates/render',
  'broadcasts/create',
  'broadcasts/update',
];

export interface FunctionUse {
  sendsMail: boolean;
  /** SES actions it calls (identities count: domains use the SES client without sending). */
  callsSes: boolean;
  readsSecrets: boolean;
  rendersTemplates: boolean;
  /** Sends to a queue of its own or another (the retry, webhook or broadcast queue). */
  sendsToQueues: boolean;
}

/** What a function calls, from the route table: the same declarations the stack grants permissions from. */
export function functionUse(handler: string): FunctionUse {
  const routes = routesOf(handler, ROUTES);
  const sendsMail = routes.some((route) => route.ses?.includes('SendEmail'));
  return {
    sendsMail,
    callsSes: routes.some((route) => (route.ses ?? []).length > 0),
    readsSecrets: routes.some((route) => (route.secrets ?? []).length > 0),
    rendersTemplates: sendsMail || TEMPLATE_ENGINE_HANDLERS.includes(handler),
    sendsToQueues: routes.some((route) => (route.queues ?? []).length > 0),
  };
}

function allowedHeavyModules(use: FunctionUse): Set<HeavyModule> {
  const allowed = new Set<HeavyModule>();
  if (use.callsSes) allowed.add('SES client');
  if (use.rendersTemplates) allowed.add('liquidjs');
  if (use.readsSecrets) allowed.add('Secrets Manager client');
  if (use.sendsToQueues) allowed.add('SQS client');
  return allowed;
}

/** The heavy modules in a bundle that its function never uses: `['SES client']` for a list endpoint that imports the mail transport. */
export function unusedHeavyModules(inputs: readonly string[], use: FunctionUse): HeavyModule[] {
  const allowed = allowedHeavyModules(use);
  return (Object.entries(HEAVY_MODULES) as [HeavyModule, string][])
    .filter(([name, path]) => !allowed.has(name) && inputs.some((input) => input.includes(path)))
    .map(([name]) => name);
}

/** The chain of imports from the entry point to the first input matching `path`, to say what drags a module in. */
export function importChain(metafile: Metafile, entry: string, path: string): string[] {
  const parent = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file.includes(path)) {
      const chain: string[] = [];
      for (let at: string | undefined = file; at; at = parent.get(at)) chain.unshift(at);
      return chain.filter((step) => !step.includes('node_modules/') || step === file);
    }
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (!parent.has(imported.path)) {
        parent.set(imported.path, file);
        queue.push(imported.path);
      }
    }
  }
  return [];
}

export interface BundleReport extends Bundle {
  unused: { module: HeavyModule; via: string[] }[];
}

/**
 * Functions no route invokes, bundled and measured like the rest: the SES
 * feedback and reconciliation functions (lib/feedback.ts), and the workers fed by
 * a queue or the table's stream, with what each declares it calls.
 */
async function workerFunctions(): Promise<Map<string, FunctionUse>> {
  const { EVENT_FUNCTIONS, FEEDBACK_WORKER } = await import('../lib/feedback.ts');
  const { RETRY_WORKER } = await import('../lib/retry-queue.ts');
  const { EVENT_FAN_OUT } = await import('../lib/event-fan-out.ts');
  const { BROADCAST_WORKER } = await import('../lib/broadcasts.ts');
  const { WEBHOOK_WORKER } = await import('../lib/webhooks.ts');
  const { EXPORT_WORKER } = await import('../lib/exports.ts');
  const declared: { handler: string; ses?: readonly string[]; secrets?: readonly string[] }[] = [
    ...Object.values(EVENT_FUNCTIONS),
    FEEDBACK_WORKER,
    RETRY_WORKER,
    EVENT_FAN_OUT,
    BROADCAST_WORKER,
    WEBHOOK_WORKER,
    EXPORT_WORKER,
  ];
  // Every worker but the feedback functions and the export worker is fed by a queue it also sends to (backoff, next steps) or, for the fan-out,
  // by the stream onto the webhook queue; the export worker's retries are its queue's receives, and it sends nothing on.
  const sendsNothing = new Set<string>([...Object.values(EVENT_FUNCTIONS), FEEDBACK_WORKER, EXPORT_WORKER].map((fn) => fn.handler));
  return new Map(
    declared.map((fn) => {
      const sendsMail = (fn.ses ?? []).includes('SendEmail');
      const use: FunctionUse = {
        sendsMail,
        callsSes: (fn.ses ?? []).length > 0,
        readsSecrets: (fn.secrets ?? []).length > 0,
        rendersTemplates: sendsMail,
        sendsToQueues: !sendsNothing.has(fn.handler),
      };
      return [fn.handler, use];
    }),
  );
}

/** Every deployed function with what it calls: the route handlers, then the workers. */
export async function deployedFunctions(): Promise<Map<string, FunctionUse>> {
  const workers = await workerFunctions();
  return new Map([...handlerModules(ROUTES).map((handler): [string, FunctionUse] => [handler, functionUse(handler)]), ...workers]);
}

/** Bundles every function into `outDir` with the deployed settings and a metafile. */
export async function bundleAll(outDir: string): Promise<BundleReport[]> {
  const functions = await deployedFunctions();
  const bundles = await bundleFunctions([...functions.keys()].map((handler) => ({ handler, directory: `${outDir}/${handler}` })));
  return bundles.map(({ handler, metafile, entry: file }) => {
    const use = functions.get(handler)!;
    const entry = `functions/${handler}.ts`;
    // What esbuild kept: a module imported but tree-shaken away costs nothing at load.
    const inputs = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    );
    const atStart = new Set(loadedAtStart(metafile));
    const sizes = Object.entries(metafile.outputs).filter(([path]) => path.endsWith('.mjs'));
    const bytes = sizes.filter(([path]) => atStart.has(path)).reduce((sum, [, output]) => sum + output.bytes, 0);
    const chunkBytes = sizes.filter(([path]) => !atStart.has(path)).reduce((sum, [, output]) => sum + output.bytes, 0);
    const unused = unusedHeavyModules(inputs, use).map((module) => ({ module, via: importChain(metafile, entry, HEAVY_MODULES[module]) }));
    return { handler, file, bytes, chunkBytes, inputs, sendsMail: use.sendsMail, unused };
  });
}
