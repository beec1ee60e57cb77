// The worker thread that bundles the stack's functions during a synth (lib/function-code.ts):
// one esbuild context (lib/bundling.ts `functionBuilder`) for every function of the synth.
// Each message names a handler and its directory, or the dashboard's directory (dashboard/build.ts,
// `job: 'dashboard'`); the answer goes on the message's port, then `done` wakes the thread that waits for it.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const building = import('./bundling.ts').then(({ functionBuilder }) => functionBuilder());

parentPort.on('message', async ({ job, handler, directory, done, reply }) => {
  try {
    if (job === 'dashboard') await (await import('../dashboard/build.ts')).buildDashboard(directory);
    else await (await building).build({ handler, directory });
    reply.postMessage({});
  } catch (error) {
    reply.postMessage({ error: String(error?.stack ?? error) });
  } finally {
    reply.close();
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
  }
});
