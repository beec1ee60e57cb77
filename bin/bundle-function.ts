// `node --import tsx bin/bundle-function.ts <handler> <outdir>`: one function's bundle, as the
// stack's container build makes it were local bundling refused (lib/function-code.ts).
import { bundleHandler } from '../lib/bundling.ts';

const [handler, outdir] = process.argv.slice(2);
if (!handler || !outdir) throw new Error('usage: bundle-function.ts <handler> <outdir>');
await bundleHandler(handler, outdir);
