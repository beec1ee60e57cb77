/**
 * Builds the dashboard (dashboard/src) into static files: `index.html` and
 * content-hashed `assets/*`, for `npm run build`, `npm start`, the browser tests
 * and the benchmark alike (docs/dashboard.md, "How it is built and served").
 * - esbuild, the bundler the Lambda handlers already use: TypeScript and JSX
 *   need no other tool, and a build takes about a second.
 * - Code splitting: each page is a dynamic import, so sign-in loads React, the
 *   form primitives and the shell only, and a page's code arrives when it is
 *   opened (the 150 KB budget of sign-in plus Overview, docs/dashboard.md).
 * - Every asset's name carries its content hash, so it can be cached for a year;
 *   index.html, the one file without one, is never cached.
 * - The CSV import's Web Worker is built first, as one classic script (a
 *   worker shares no chunk with the page), and its served path is compiled
 *   into the page as `IMPORT_WORKER_URL`.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { DASHBOARD_OUT } from '#dev/local/dashboard.ts';
import { DASHBOARD_ASSETS, DASHBOARD_PREFIX } from './serving.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = 'dashboard/src/main.tsx';
/** The CSV import's parser, a Web Worker: a file of its own, which the page starts by the URL the build gives it. */
const IMPORT_WORKER = 'dashboard/src/pages/audiences/import/worker.ts';

/** The path the dashboard is served under, on the API's own origin. */
const DASHBOARD_BASE = `${DASHBOARD_PREFIX}/`;
const ASSETS = DASHBOARD_ASSETS;

export interface DashboardBuild {
  outDir: string;
  /** The entry script and stylesheet index.html loads, as served paths (`/app/assets/main-….js`). */
  entry: { script: string; stylesheet: string | undefined };
  /** Every JavaScript file with the modules it imports statically and the ones it loads on demand, by file name under assets/. */
  scripts: Record<string, { bytes: number; gzipBytes: number; imports: string[]; dynamicImports: string[]; inputs: string[]; entryPoint: string | undefined }>;
}

function indexHtml(script: string, stylesheet: string | undefined, preloads: string[]): string {
  // No inline script or style: the page's CSP allows scripts from its own origin only.
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light">',
    '<title>Postlane</title>',
    '<link rel="icon" href="data:,">',
    ...(stylesheet ? [`<link rel="stylesheet" href="${stylesheet}">`] : []),
    ...preloads.map((href) => `<link rel="modulepreload" href="${href}">`),
    `<script type="module" src="${script}"></script>`,
    '</head>',
    '<body>',
    '<div id="root"></div>',
    '<noscript><p>The Postlane dashboard needs JavaScript. The API works without it: see /docs.</p></noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The served path of an output file of esbuild's metafile. */
function servedPath(outDir: string, output: string): string {
  return `${DASHBOARD_BASE}${relative(outDir, join(ROOT, output)).split('\\').join('/')}`;
}

/**
 * Builds into `outDir` (emptied first) and describes what it wrote.
 *
 * `const { entry } = await buildDashboard(); // entry.script === '/app/assets/main-3FJ2KQ.js'`
 */
export async function buildDashboard(outDir = DASHBOARD_OUT): Promise<DashboardBuild> {
  // Built aside, then moved in file by file (a rename replaces a file at once): a server reading the folder, or a
  // second build running at the same time (npm start and the tests), never sees a half-written file or a missing one.
  await mkdir(dirname(outDir), { recursive: true });
  const staging = await mkdtemp(join(dirname(outDir), '.dashboard-build-'));
  try {
    const common = {
      absWorkingDir: ROOT,
      outdir: join(staging, ASSETS),
      bundle: true,
      platform: 'browser' as const,
      // Browsers of the last two years: no transform of what they all run natively.
      target: ['chrome120', 'firefox121', 'safari17'],
      minify: true,
      treeShaking: true,
      entryNames: '[name]-[hash]',
      chunkNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      legalComments: 'none',
      metafile: true as const,
      logLevel: 'warning' as const,
    } satisfies BuildOptions;
    const worker = await build({ ...common, entryPoints: { 'import-worker': IMPORT_WORKER }, format: 'iife' });
    const workerOutput = Object.keys(worker.metafile.outputs).find((output) => worker.metafile.outputs[output]!.entryPoint === IMPORT_WORKER)!;
    const result = await build({
      ...common,
      entryPoints: { main: ENTRY },
      splitting: true,
      format: 'esm',
      jsx: 'automatic',
      define: {
        // React reads NODE_ENV only through this: the browser has no `process`.
        'process.env.NODE_ENV': '"production"',
        IMPORT_WORKER_URL: JSON.stringify(servedPath(staging, workerOutput)),
      },
    });
    const metafile = { inputs: { ...worker.metafile.inputs, ...result.metafile.inputs }, outputs: { ...worker.metafile.outputs, ...result.metafile.outputs } };
    const { entry, scripts } = describe(metafile, staging);
    const entryScript = scripts[entry.file]!;
    const preloads = entryScript.imports.map((file) => `${DASHBOARD_BASE}${ASSETS}/${file}`);
    await writeFile(join(staging, 'index.html'), indexHtml(entry.script, entry.stylesheet, preloads));
    for (const [file, script] of Object.entries(scripts)) script.gzipBytes = gzipSync(await readFile(join(staging, ASSETS, file)), { level: 9 }).length;

    await mkdir(join(outDir, ASSETS), { recursive: true });
    const built = await readdir(join(staging, ASSETS));
    for (const file of built) await rename(join(staging, ASSETS, file), join(outDir, ASSETS, file));
    await rename(join(staging, 'index.html'), join(outDir, 'index.html'));
    // What an earlier build left: names carry their content's hash, so the same code builds the same names.
    for (const file of await readdir(join(outDir, ASSETS))) if (!built.includes(file)) await rm(join(outDir, ASSETS, file), { force: true });
    return { outDir, entry: { script: entry.script, stylesheet: entry.stylesheet }, scripts };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function describe(metafile: Metafile, outDir: string) {
  const scripts: DashboardBuild['scripts'] = {};
  let entry: { file: string; script: string; stylesheet: string | undefined } | undefined;
  const fileOf = (output: string) => output.split('/').pop()!;
  for (const [output, meta] of Object.entries(metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    scripts[fileOf(output)] = {
      bytes: meta.bytes,
      gzipBytes: 0,
      imports: meta.imports.filter((one) => one.kind === 'import-statement').map((one) => fileOf(one.path)),
      dynamicImports: meta.imports.filter((one) => one.kind === 'dynamic-import').map((one) => fileOf(one.path)),
      inputs: Object.keys(meta.inputs),
      entryPoint: meta.entryPoint,
    };
    if (meta.entryPoint === ENTRY)
      entry = { file: fileOf(output), script: servedPath(outDir, output), stylesheet: meta.cssBundle ? servedPath(outDir, meta.cssBundle) : undefined };
  }
  if (!entry) throw new Error('the dashboard build wrote no entry script');
  return { entry, scripts };
}

/** The pages the 150 KB budget covers: what a person signing in and landing on the Overview loads. */
export const BUDGET_PAGES = ['dashboard/src/pages/sign-in/page.tsx', 'dashboard/src/pages/overview/page.tsx'];

/**
 * Gzipped bytes of JavaScript a browser loads to show `pages` (source paths):
 * the entry script, each page's chunk, and every chunk they import statically,
 * each once. Chunks only imported on demand (other pages, the account menu) are not counted.
 *
 * `javascriptFor(built, BUDGET_PAGES) // 144_000`
 */
export function javascriptFor(built: DashboardBuild, pages: readonly string[]): number {
  const byEntry = new Map(Object.entries(built.scripts).map(([file, script]) => [script.entryPoint, file]));
  const loaded = new Set<string>();
  const load = (file: string): void => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const imported of built.scripts[file]!.imports) load(imported);
  };
  for (const entry of [ENTRY, ...pages]) {
    const file = byEntry.get(entry);
    if (!file) throw new Error(`the dashboard build has no chunk for ${entry}`);
    load(file);
  }
  return [...loaded].reduce((sum, file) => sum + built.scripts[file]!.gzipBytes, 0);
}
