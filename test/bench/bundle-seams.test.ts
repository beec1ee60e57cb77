/**
 * A deployed function carries what runs in Lambda and nothing else: the
 * DynamoDB fault hook and meter are attached by the tests and the benchmark
 * (test/support/dynamo-faults.ts, bench/dynamo-meter.ts), and development
 * tooling stays out of the bundle.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { build } from 'esbuild';
import { bundleHandler, bundleOptions, loadedAtStart } from '../../lib/bundling.ts';

const outdir = mkdtempSync(join(tmpdir(), 'postlane-seams-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Bytes a handler's bundle keeps from the inputs whose path holds `path`. */
async function bytesFrom(handler: string, path: string): Promise<number> {
  const { metafile } = await bundleHandler(handler, join(outdir, handler));
  return Object.values(metafile.outputs)
    .flatMap((output) => Object.entries(output.inputs))
    .filter(([input]) => input.includes(path))
    .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
}

it('bundles a DynamoDB-using function with no fault hook, no meter, and nothing from dev/, test/ or bench/', async () => {
  const { metafile, entry } = await bundleHandler('contacts/create', join(outdir, 'create'));
  const inputs = Object.keys(metafile.inputs);

  expect(inputs).toContain('shared/platform/dynamodb/client.ts');
  expect(inputs.filter((input) => /^(dev|test|bench|lib|bin|scripts)\//.test(input))).toEqual([]);
  // Middleware names survive minification: they are strings on the client's stack.
  expect(readFileSync(entry, 'utf8').match(/fault ?hook|dynamo ?meter/gi) ?? []).toEqual([]);
});

it('bundles the template engine only into the template functions that parse or render one', async () => {
  const liquidBytes = (handler: string) => bytesFrom(handler, 'node_modules/liquidjs/');

  for (const handler of ['templates/get', 'templates/list', 'templates/delete', 'system/fallback', 'system/preflight'])
    expect([handler, await liquidBytes(handler)]).toEqual([handler, 0]);
  for (const handler of ['templates/create', 'templates/update', 'templates/render', 'templates/render-draft'])
    expect(await liquidBytes(handler)).toBeGreaterThan(0);
});

it("bundles no SDK client a function never calls, though its area's domain module imports the sending code", async () => {
  const sdkBytes = (handler: string, sdk: string) => bytesFrom(handler, `node_modules/@aws-sdk/${sdk}/`);

  expect(await sdkBytes('broadcasts/list', 'client-sesv2')).toBe(0);
  expect(await sdkBytes('email/send', 'client-sesv2')).toBeGreaterThan(0);
  // The webhook and broadcast routes import the queue modules for their helpers; only those that queue keep the SQS client.
  for (const handler of ['webhooks/list', 'webhooks/update', 'broadcasts/get', 'broadcasts/create'])
    expect([handler, await sdkBytes(handler, 'client-sqs')]).toEqual([handler, 0]);
  for (const handler of ['webhooks/send-test', 'broadcasts/send']) expect(await sdkBytes(handler, 'client-sqs')).toBeGreaterThan(0);
});

it('bundles the webhook signer only into the delivery worker, and the scheduler client into no function at start', async () => {
  for (const handler of ['webhooks/create', 'webhooks/retry', 'webhooks/send-test'])
    expect([handler, await bytesFrom(handler, 'node_modules/standardwebhooks/')]).toEqual([handler, 0]);
  expect(await bytesFrom('webhooks/deliver', 'node_modules/standardwebhooks/')).toBeGreaterThan(0);

  // Scheduling is the rarer path of a broadcast: its client is a chunk read on the first schedule.
  const { metafile } = await bundleHandler('broadcasts/send', join(outdir, 'broadcasts-send'));
  const withScheduler = Object.entries(metafile.outputs)
    .filter(([, output]) => Object.keys(output.inputs).some((input) => input.includes('node_modules/@aws-sdk/client-scheduler/')))
    .map(([file]) => file);
  expect(withScheduler).toHaveLength(1);
  expect(loadedAtStart(metafile)).not.toContain(withScheduler[0]);
});

it('loads the template engine and the HTML-to-text converter in a sending function only when it composes a message', async () => {
  const { metafile, entry } = await bundleHandler('email/send', join(outdir, 'send-split'));
  // Paths of the outputs that hold code from `path`: the entry Lambda loads at cold start, or chunks beside it.
  const outputsWith = (path: string) =>
    Object.entries(metafile.outputs)
      .filter(([, output]) => Object.entries(output.inputs).some(([input, kept]) => input.includes(`node_modules/${path}`) && kept.bytesInOutput > 0))
      .map(([file]) => file);
  const atStart = loadedAtStart(metafile);

  for (const path of ['liquidjs/', 'html-to-text/', 'htmlparser2/', 'entities/', '@smithy/core/dist-es/submodules/event-streams/']) {
    expect([path, outputsWith(path).length > 0]).toEqual([path, true]);
    expect([path, outputsWith(path).filter((file) => atStart.includes(file))]).toEqual([path, []]);
  }
  expect(outputsWith('@aws-sdk/client-dynamodb/').every((file) => atStart.includes(file))).toBe(true);
  expect(readFileSync(entry, 'utf8')).toContain('./chunks/');
});

it('compiles a large JSON file as one JSON.parse of a string, with the same value, and leaves a small one a literal', async () => {
  const outfile = join(outdir, 'json.mjs');
  const contents =
    "export { default as description } from './docs/openapi.json' with { type: 'json' }; export { default as tsconfig } from './tsconfig.json' with { type: 'json' };";
  await build({ ...bundleOptions(), stdin: { contents, resolveDir: process.cwd() }, outfile });
  const { description, tsconfig } = await import(pathToFileURL(outfile).href);
  const source = readFileSync(outfile, 'utf8');

  expect(description).toEqual(JSON.parse(readFileSync('docs/openapi.json', 'utf8')));
  expect(source.match(/JSON\.parse\(["'`]/g)).toHaveLength(1);
  expect(tsconfig).toEqual(expect.objectContaining({ compilerOptions: expect.any(Object) }));
});
