// `npm run build`: bundles every handler module of the route table exactly as the
// CDK stack does, into dist/functions/<handler>/ (index.mjs, its chunks, and esbuild's metafile).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { bundleHandler } from '../lib/bundling.ts';
import { handlerModules } from '#shared/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';

const OUT = 'dist/functions';
await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });

const rows: string[] = [];
for (const handler of handlerModules(ROUTES)) {
  const { metafile } = await bundleHandler(handler, `${OUT}/${handler}`);
  await writeFile(`${OUT}/${handler}/meta.json`, JSON.stringify(metafile));
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  rows.push(`${handler.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KB`);
}
console.log(rows.join('\n'));
