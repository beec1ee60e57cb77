import { dirname } from 'node:path';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { RENDERER_FILES } from '#shared/pages/docs.ts';
import type { BuildOptions, Metafile } from 'esbuild';

/**
 * How every handler is bundled, shared by the CDK functions and `npm run build`
 * so that what is measured locally is what is deployed.
 * - The SDK is bundled, not taken from the runtime: the runtime's copy is whatever
 *   version AWS ships that month, while the bundle carries the version the tests ran
 *   against. Loading one tree-shaken file is also faster: a handler bundle loads in
 *   about 50 ms, the same handler with `@aws-sdk/*` resolved from node_modules in
 *   about 200 ms (Node 20 on the dev machines).
 * - `module` before `main` picks the packages' ESM builds, which tree-shake to about
 *   350 KB per handler instead of 550 KB.
 * - The banner gives CommonJS code inside the ESM bundle a real `require` for Node
 *   built-ins; without it esbuild's shim throws "Dynamic require is not supported".
 * - No source map: loading one costs cold-start time on every function, and the logs
 *   already carry each error's name and message.
 * - The SDK's default credential chain is replaced by the environment and container
 *   providers Lambda actually uses (shared/aws/lambda-credentials.ts).
 * - Two built-ins the SDK imports as ES modules are replaced by what it uses of them,
 *   which Node would otherwise load in full at every cold start: `node:zlib` (for an
 *   event-stream CRC32, loaded on first call: shared/aws/zlib-crc32.ts) and
 *   `node:process` (`env` and `versions`: shared/aws/node-process.ts). Any other use of
 *   them in a function fails its build: the stand-ins export nothing else, and an
 *   import that would be undefined is an error, not a warning.
 */
export const ESBUILD_SETTINGS = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  treeShaking: true,
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  // esbuild resolves an alias's path from the working directory: CDK and `npm run build` both run at the root.
  alias: {
    '@aws-sdk/credential-provider-node': './shared/aws/lambda-credentials.ts',
    'node:zlib': './shared/aws/zlib-crc32.ts',
    'node:process': './shared/aws/node-process.ts',
  },
  logOverride: { 'import-is-undefined': 'error' },
} as const;

export const CDK_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: ESBUILD_SETTINGS.target,
  mainFields: [...ESBUILD_SETTINGS.mainFields],
  minify: ESBUILD_SETTINGS.minify,
  esbuildArgs: {
    '--tree-shaking': String(ESBUILD_SETTINGS.treeShaking),
    ...Object.fromEntries(Object.entries(ESBUILD_SETTINGS.alias).map(([module, path]) => [`--alias:${module}`, path])),
    ...Object.fromEntries(Object.entries(ESBUILD_SETTINGS.logOverride).map(([message, level]) => [`--log-override:${message}`, level])),
  },
  sourceMap: false,
  bundleAwsSDK: true,
  banner: ESBUILD_SETTINGS.banner,
};

/**
 * Files of npm packages that a handler reads at run time rather than imports:
 * the /docs page inlines Swagger UI's browser bundle, which is not code for
 * Node. They go into the function's asset under node_modules/, where
 * `require.resolve` finds them, as it does in this repository.
 */
const RUNTIME_FILES: Partial<Record<string, readonly string[]>> = { 'system/docs': RENDERER_FILES };

/** The CDK bundling of one handler: CDK_BUNDLING, plus copying the files it reads at run time. */
export function cdkBundlingOf(handler: string): BundlingOptions {
  const files = RUNTIME_FILES[handler];
  if (!files) return CDK_BUNDLING;
  return {
    ...CDK_BUNDLING,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) =>
        files.map(
          (file) => `mkdir -p "${outputDir}/node_modules/${dirname(file)}" && cp "${inputDir}/node_modules/${file}" "${outputDir}/node_modules/${file}"`,
        ),
    },
  };
}

/**
 * Bundles `functions/<handler>.ts` into `outfile` with these settings, as
 * `npm run build` and the benchmark do; the metafile lists every input.
 * `readable` leaves it unminified, for tests that read esbuild's own names in it.
 */
export async function bundleHandler(handler: string, outfile: string, readable = false): Promise<Metafile> {
  const { build } = await import('esbuild');
  const result = await build({ ...bundleOptions(readable), entryPoints: [`functions/${handler}.ts`], outfile });
  return result.metafile;
}

/** These settings as esbuild's `build()` takes them, with a metafile; the caller adds the entry and the output. */
export function bundleOptions(readable = false): BuildOptions & { metafile: true } {
  return {
    ...ESBUILD_SETTINGS,
    minify: ESBUILD_SETTINGS.minify && !readable,
    mainFields: [...ESBUILD_SETTINGS.mainFields],
    banner: { js: ESBUILD_SETTINGS.banner },
    alias: { ...ESBUILD_SETTINGS.alias },
    bundle: true,
    metafile: true,
    logLevel: 'warning',
  };
}
