// `node --import tsx bin/bundle-dashboard.ts <outdir>`: the dashboard's files, as the stack's
// container build makes them were local bundling refused (lib/dashboard-site.ts).
import { buildDashboard } from '../dashboard/build.ts';

const [outdir] = process.argv.slice(2);
if (!outdir) throw new Error('usage: bundle-dashboard.ts <outdir>');
await buildDashboard(outdir);
