// `npm run build`: bundles every handler module of the route table exactly as the
// CDK stack does, into dist/functions/, with an esbuild metafile per bundle.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { ESBUILD_SETTINGS } from '../lib/bundling.ts';
import { handlerModules } from '#shared/http/routes.ts';

const OUT = 'dist/functions';
await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });

const rows: string[] = [];
for (const handler of handlerModules()) {
  const outfile = `${OUT}/${handler}.mjs`;
  const result = await build({
    ...ESBUILD_SETTINGS,
    mainFields: [...ESBUILD_SETTINGS.mainFields],
    banner: { js: ESBUILD_SETTINGS.banner },
    entryPoints: [`functions/${handler}.ts`],
    bundle: true,
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  await writeFile(`${OUT}/${handler}.meta.json`, JSON.stringify(result.metafile));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  rows.push(`${handler.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KB`);
}
console.log(rows.join('\n'));
