import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RENDERER_FILES } from '#shared/platform/http/docs-page.ts';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How every handler is bundled, by the CDK stack (lib/function-code.ts), `npm run build`,
 * the benchmark and the tests alike, through esbuild's API (`bundleFunctions`), so
 * that what is measured and tested locally is what is deployed.
 * - The SDK is bundled, not taken from the runtime: the runtime's copy is whatever
 *   version AWS ships that month, while the bundle carries the version the tests ran
 *   against. Loading one tree-shaken file is also faster: a handler bundle loads in
 *   about 50 ms, the same handler with `@aws-sdk/*` resolved from node_modules in
 *   about 200 ms (Node 20 on the dev machines).
 * - `module` before `main` picks the packages' ESM builds, which tree-shake to about
 *   350 KB per handler instead of 550 KB.
 * - Code reached only by `import()` goes into chunks of its own beside `index.mjs`,
 *   which Node reads and compiles only when that import runs: the template engine
 *   (only for text with a `{`), the HTML-to-text converter (only for HTML without a
 *   text part), the SDK's event-stream codec (which no service here uses). In one
 *   file they were parsed at every cold start, used or not. The stack therefore
 *   bundles with esbuild's API, not NodejsFunction's command line, which cannot split.
 * - The banner gives CommonJS code inside the ESM bundle a real `require` for Node
 *   built-ins; without it esbuild's shim throws "Dynamic require is not supported".
 * - No source map: loading one costs cold-start time on every function, and the logs
 *   already carry each error's name and message.
 * - The SDK's default credential chain is replaced by the environment and container
 *   providers Lambda actually uses (shared/platform/aws/lambda-credentials.ts), and DynamoDB's
 *   endpoint discovery, which no command of it uses, by nothing
 *   (shared/platform/aws/no-endpoint-discovery.ts).
 * - Two built-ins the SDK imports as ES modules are replaced by what it uses of them,
 *   which Node would otherwise load in full at every cold start: `node:zlib` (for an
 *   event-stream CRC32, loaded on first call: shared/platform/aws/zlib-crc32.ts) and
 *   `node:process` (`env` and `versions`: shared/platform/aws/node-process.ts). Any other use of
 *   them in a function fails its build: the stand-ins export nothing else, and an
 *   import that would be undefined is an error, not a warning.
 * - The SDK clients' shape tables are made tree-shakeable (`sdkSchemaShaking`), and
 *   @middy/core's web streams load on first use (`middyStreamingOnDemand`,
 *   shared/platform/aws/middy-streaming.ts), and a large JSON file is compiled as one string
 *   (`largeJsonAsParse`).
 *
 * These settings as esbuild's `build()` takes them, with a metafile; the caller adds
 * the entry and the output.
 */
export function bundleOptions(): BuildOptions & { metafile: true } {
  return {
    platform: 'node',
    format: 'esm',
    // A floor, not the runtime (nodejs24.x): the bundle suite also runs the bundles on the Node 20 of the dev machines.
    target: 'node22',
    mainFields: ['module', 'main'],
    minify: true,
    treeShaking: true,
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    // Relative to `absWorkingDir`.
    alias: {
      '@aws-sdk/credential-provider-node': './shared/platform/aws/lambda-credentials.ts',
      '@aws-sdk/middleware-endpoint-discovery': './shared/platform/aws/no-endpoint-discovery.ts',
      'node:zlib': './shared/platform/aws/zlib-crc32.ts',
      'node:process': './shared/platform/aws/node-process.ts',
    },
    logOverride: { 'import-is-undefined': 'error' },
    plugins: [sdkSchemaShaking(), middyStreamingOnDemand(), largeJsonAsParse()],
    // Where the aliases' paths and the metafile's are relative to, wherever the build is started from.
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    metafile: true,
    logLevel: 'warning',
  };
}

/** The file Lambda loads (handler `index.handler`); chunks sit beside it under chunks/. */
export const ENTRY_FILE = 'index.mjs';

/**
 * An SDK client's schemas module (`dist-es/schemas/schemas_0.js`) declares every
 * shape of the service, and a function needs the few its commands reach. esbuild
 * drops an unused declaration only when it can prove it has no side effects, and
 * two spellings in the generated code defeat that: `64 | 0` (a list's member
 * type and its flags; a bitwise operator might call `valueOf`) and computed keys `{ [_e]: _c }`
 * (a key might call `toString`). Both operands are constants of the same file, so
 * writing the number and the key's string literal is the same value: then SESv2's 480
 * shapes shrink to SendEmail's, 49 KB to a few.
 */
export function sdkSchemaShaking(): Plugin {
  return {
    name: 'sdk-schema-shaking',
    setup(build) {
      build.onLoad({ filter: /[\\/]@aws-sdk[\\/]client-[^\\/]+[\\/]dist-es[\\/]schemas[\\/]schemas_\d+\.js$/ }, ({ path }) => ({
        contents: shakeableSchemas(readFileSync(path, 'utf8')),
        loader: 'js',
      }));
    },
  };
}

/** The stand-in of `node:stream/web`, to which only @middy/core's import of it resolves. */
export function middyStreamingOnDemand(): Plugin {
  return {
    name: 'middy-streaming-on-demand',
    setup(build) {
      build.onResolve({ filter: /^node:stream\/web$/ }, ({ importer }) =>
        /[\\/]node_modules[\\/]@middy[\\/]core[\\/]/.test(importer) ? { path: join(PROJECT_ROOT, 'shared/platform/aws/middy-streaming.ts') } : undefined,
      );
    },
  };
}

/**
 * A JSON file of 10 KB or more (the API description the /openapi.json function
 * serves, 300 KB) as `JSON.parse` of one string instead of the object literal
 * esbuild writes by default: V8 scans a string and parses JSON several times
 * faster than it compiles a literal of the same data, which a cold start did
 * in full. The same value, as the module's default export.
 */
export function largeJsonAsParse(): Plugin {
  return {
    name: 'large-json-as-parse',
    setup(build) {
      build.onLoad({ filter: /\.json$/ }, ({ path }) => {
        const text = readFileSync(path, 'utf8');
        if (text.length < LARGE_JSON_CHARS) return undefined;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          // Not strict JSON (comments, trailing commas): esbuild's own loader reads it.
          return undefined;
        }
        return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(value))});`, loader: 'js' };
      });
    },
  };
}

const LARGE_JSON_CHARS = 10_000;

/** `source` with `64 | 1` as `65` and each computed key naming a string constant of the file as that string. */
export function shakeableSchemas(source: string): string {
  const constants = new Map<string, string>();
  for (const [, name, literal] of source.matchAll(/^const (_\w+) = ("(?:[^"\\]|\\.)*");$/gm)) constants.set(name!, literal!);
  return source
    .replace(/\b(\d+) \| (\d+)\b/g, (_whole, left: string, right: string) => String(Number(left) | Number(right)))
    .replace(/\[(_\w+)\]:/g, (whole, name: string) => {
      const literal = constants.get(name);
      return literal === undefined ? whole : `${literal}:`;
    });
}

/**
 * Files of npm packages that a handler reads at run time rather than imports:
 * the /docs page inlines Swagger UI's browser bundle, which is not code for
 * Node. They go into the function's asset under node_modules/, where
 * `require.resolve` finds them, as it does in this repository.
 */
const RUNTIME_FILES: Partial<Record<string, readonly string[]>> = { 'system/docs': RENDERER_FILES };

/**
 * Every handler module under functions/ (all but the contracts and the route
 * table): the functions the stack deploys, which test/bench/budgets.test.ts
 * holds to the stack's own list.
 */
export function handlerModules(): string[] {
  return readdirSync(join(PROJECT_ROOT, 'functions'), { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(sep).join('/'))
    .filter((file) => file.endsWith('.ts') && !/(^|\/)(contract|routes)\.ts$/.test(file))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
}

/** One function's bundle: `directory` holds `index.mjs` (`entry`) and its chunks; the metafile lists every input of every output. */
export interface FunctionBundle {
  handler: string;
  directory: string;
  entry: string;
  metafile: Metafile;
}

/**
 * Bundles `functions/<handler>.ts` into `outdir` (`index.mjs` and its chunks),
 * with the files it reads at run time.
 */
export async function bundleHandler(handler: string, outdir: string): Promise<FunctionBundle> {
  const [bundle] = await bundleFunctions([{ handler, directory: outdir }]);
  return bundle!;
}

/** The entry every build's context resolves to the handler it is building now. */
const CURRENT_ENTRY = 'postlane:current-handler';

/** Bundles one handler after another into their directories, reusing what it parsed for the ones before. */
export interface FunctionBuilder {
  build(target: { handler: string; directory: string }): Promise<FunctionBundle>;
  dispose(): Promise<void>;
}

/**
 * One esbuild context with the settings of `bundleOptions`, rebuilt for each
 * handler in turn: every bundle exactly as it would be alone (its own tree
 * shaking and chunks), while a rebuild reuses what the context parsed before,
 * so the SDK and the shared modules are read and parsed once, not once per
 * function (about 200 ms of esbuild's CPU a function instead of 360 ms).
 *
 * Not one build with every handler as an entry point: esbuild splits such a
 * build into chunks by whole modules, and a module goes with everything any
 * entry uses of it, so a function would load at cold start the code other
 * functions use of a module (`contacts/get` 245 KB → 304 KB, `broadcasts/get`
 * 270 KB → 419 KB in 47 files, SES and SQS clients included; docs/performance.md).
 */
export async function functionBuilder(): Promise<FunctionBuilder> {
  const { context } = await import('esbuild');
  let current = '';
  const options = bundleOptions();
  // Where esbuild would write; nothing is written there (`write: false`), each output goes to its handler's directory.
  const staging = join(tmpdir(), `postlane-bundle-${process.pid}-${++builders}`);
  const build = await context({
    ...options,
    plugins: [currentHandlerEntry(() => current), ...options.plugins!],
    entryPoints: { index: CURRENT_ENTRY },
    outdir: staging,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    write: false,
  });
  // One build at a time: `current` names the handler of the build in progress.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    build(target) {
      const built = queue.then(async () => {
        current = target.handler;
        const result = await build.rebuild();
        return writeBundle(target, staging, result.metafile!, result.outputFiles!);
      });
      queue = built.catch(() => undefined);
      return built;
    },
    dispose: () => build.dispose(),
  };
}

let builders = 0;

/** Bundles each handler into its directory, shared out among at most two builders (the machines here have two cores). */
export async function bundleFunctions(targets: readonly { handler: string; directory: string }[]): Promise<FunctionBundle[]> {
  const lanes = Math.max(1, Math.min(2, availableParallelism(), targets.length));
  const bundles = new Map<string, FunctionBundle>();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const builder = await functionBuilder();
      try {
        for (const target of targets.filter((_target, index) => index % lanes === lane)) bundles.set(target.handler, await builder.build(target));
      } finally {
        await builder.dispose();
      }
    }),
  );
  return targets.map((target) => bundles.get(target.handler)!);
}

function currentHandlerEntry(handler: () => string): Plugin {
  return {
    name: 'current-handler',
    setup(build) {
      build.onResolve({ filter: /^postlane:current-handler$/ }, () => ({ path: join(PROJECT_ROOT, 'functions', `${handler()}.ts`) }));
    },
  };
}

/** Paths as the metafile writes them: relative to the project, with `/`. */
const metafilePath = (path: string) => relative(PROJECT_ROOT, path).split(sep).join('/');

/** Writes what the entry can load into the handler's directory, with its run-time files; the metafile as if built there. */
function writeBundle(
  target: { handler: string; directory: string },
  staging: string,
  built: Metafile,
  files: readonly { path: string; contents: Uint8Array }[],
): FunctionBundle {
  const from = `${metafilePath(staging)}/`;
  const to = `${metafilePath(target.directory)}/`;
  const moved = (path: string) => (path.startsWith(from) ? to + path.slice(from.length) : path);
  const outputs = Object.entries(reachableOutputs(built).outputs).map(
    ([path, output]) => [moved(path), { ...output, imports: output.imports.map((imported) => ({ ...imported, path: moved(imported.path) })) }] as const,
  );
  const metafile: Metafile = { ...built, outputs: Object.fromEntries(outputs) };
  for (const file of files) {
    if (!(moved(metafilePath(file.path)) in metafile.outputs)) continue;
    const written = join(target.directory, relative(staging, file.path));
    mkdirSync(dirname(written), { recursive: true });
    writeFileSync(written, file.contents);
  }
  for (const file of RUNTIME_FILES[target.handler] ?? []) {
    const copy = join(target.directory, 'node_modules', file);
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, 'node_modules', file), copy);
  }
  return { handler: target.handler, directory: target.directory, entry: join(target.directory, ENTRY_FILE), metafile };
}

/**
 * The metafile with only the outputs the entry can load, statically or by
 * `import()`. esbuild makes a chunk for every `import()` in a module it bundles,
 * even when tree shaking drops the function that holds it (templates/get keeps
 * the template limits of shared/platform/templating/renderer.ts, not its engine): such a
 * chunk would ship in the asset and never load.
 */
function reachableOutputs(metafile: Metafile): Metafile {
  const reachable = new Set(outputsFromEntry(metafile, () => true));
  return { ...metafile, outputs: Object.fromEntries(Object.entries(metafile.outputs).filter(([file]) => reachable.has(file))) };
}

/** The entry's output and every output it imports, transitively, through the imports `follows` takes. */
function outputsFromEntry(metafile: Metafile, follows: (kind: Metafile['outputs'][string]['imports'][number]['kind']) => boolean): string[] {
  const entry = Object.keys(metafile.outputs).find((file) => file.endsWith(`/${ENTRY_FILE}`) || file === ENTRY_FILE);
  if (!entry) throw new Error(`no ${ENTRY_FILE} among the outputs`);
  const found = new Set([entry]);
  for (const file of found)
    for (const imported of metafile.outputs[file]?.imports ?? []) if (!imported.external && follows(imported.kind)) found.add(imported.path);
  return [...found];
}

/**
 * The outputs Node reads when it loads the entry (`outputs` key of `index.mjs`):
 * it and every chunk it imports statically, transitively. A chunk reached only
 * through `import()` is read when that import first runs.
 */
export function loadedAtStart(metafile: Metafile): string[] {
  return outputsFromEntry(metafile, (kind) => kind === 'import-statement');
}
