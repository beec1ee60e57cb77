// `npm run build`: bundles every handler module exactly as the CDK stack does, into
// dist/functions/<handler>/ (index.mjs, its chunks, and esbuild's metafile), and the
// dashboard into dist/dashboard/ (dashboard/build.ts).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { bundleFunctions, handlerModules } from '../lib/bundling.ts';
import { BUDGET_PAGES, buildDashboard, javascriptFor } from '../dashboard/build.ts';

const OUT = 'dist/functions';
await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });

const bundles = await bundleFunctions(handlerModules().map((handler) => ({ handler, directory: `${OUT}/${handler}` })));
const rows: string[] = [];
for (const { handler, directory, metafile } of bundles) {
  await writeFile(`${directory}/meta.json`, JSON.stringify(metafile));
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  rows.push(`${handler.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KB`);
}
console.log(rows.join('\n'));

const dashboard = await buildDashboard();
const dashboardKb = Object.values(dashboard.scripts).reduce((sum, script) => sum + script.gzipBytes, 0) / 1024;
const firstLoadKb = javascriptFor(dashboard, BUDGET_PAGES) / 1024;
console.log(
  `${'dashboard'.padEnd(28)} ${dashboardKb.toFixed(0).padStart(6)} KB of JavaScript gzipped in ${Object.keys(dashboard.scripts).length} files (dist/dashboard/); sign-in plus Overview load ${firstLoadKb.toFixed(0)} KB (budget 150)`,
);
