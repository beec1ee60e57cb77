/**
 * The bare start of the cold-init benchmark (bench/cold-start.ts): what
 * Lambda's Node.js runtime has done before it imports a function's code.
 * `node runtime-stand-in.mjs` is the runtime alone; `node
 * runtime-stand-in.mjs bundle.mjs` then imports the bundle as the runtime
 * imports a handler, so the difference of the two is the function's own
 * cost and nothing of the runtime's.
 *
 * Read from the runtime interface client, aws-lambda-ric 4.0.2 on npm
 * (`index.mjs`): the client of the Node 22 and later runtimes, whose code
 * tells the managed nodejs22.x runtime apart (line 610); read when the stack
 * deployed nodejs22.x, where it runs as /var/runtime/index.mjs. The stack now
 * deploys nodejs24.x, taken to start its handlers with the same client (not
 * read again).
 * - it is an ES module, so Node's ESM loader has started before any handler;
 * - its top level loads `module` (line 476), `node:path` (480, 557),
 *   `node:fs` (550, 1276, 1416, 1461), `node:net` (632, 1248), `node:http`
 *   (866), `node:os` (1277), `node:util` (1370) and `node:worker_threads`
 *   (1580, 1626), and nothing else: no `https`, no `crypto`, no `stream`
 *   beyond what these load themselves;
 * - `createRuntime` (1200-1232) then builds the RAPID client, whose
 *   constructor makes a keep-alive `http.Agent` (888), and only after it
 *   calls `UserFunctionLoader.load` (1219), which resolves the handler's
 *   absolute path (559) and imports it with `existsSync(path) ? await
 *   import(path)` (553).
 * Left out: the RAPID client's native addon (`rapid-client.node`, 967),
 * which is built against libcurl at install and cannot be loaded here. It
 * is the runtime's cost, so leaving it out only makes the bare start a
 * little shorter and a function's ratio a little larger than in Lambda.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { existsSync } = require('node:fs');
const { resolve } = require('node:path');
require('node:net');
const { Agent } = require('node:http');
require('node:os');
require('node:util');
require('node:worker_threads');

new Agent({ keepAlive: true, maxSockets: 1 });

if (process.argv[2] !== undefined) {
  const handlerFile = resolve(process.argv[2]);
  if (!existsSync(handlerFile)) throw new Error(`No handler file at ${handlerFile}`);
  await import(handlerFile);
}
