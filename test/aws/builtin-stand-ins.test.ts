/**
 * The stand-ins for `node:zlib` and `node:process` in the function bundles
 * (shared/platform/aws/zlib-crc32.ts, shared/platform/aws/node-process.ts): the SDK gets the
 * same values from them, and Node no longer loads what it never uses when it
 * loads a bundle.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, expect, inject, it } from 'vitest';
import { crc32 } from '#shared/platform/aws/zlib-crc32.ts';
import { bundleOptions } from '../../lib/bundling.ts';

const outdir = mkdtempSync(join(tmpdir(), 'postlane-builtins-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** `contents` bundled as a function is, then imported by a plain Node process, as in Lambda, running `script` after it: its JSON output. */
async function bundleAndRun(name: string, contents: string, script: string): Promise<{ source: string; result: any }> {
  const outfile = join(outdir, `${name}.mjs`);
  await build({ ...bundleOptions(), stdin: { contents, resolveDir: process.cwd() }, outfile });
  const code = `const loaded = (builtin) => process.moduleLoadList.includes('NativeModule ' + builtin);
    const bundle = await import(${JSON.stringify(pathToFileURL(outfile).href)});
    ${script}`;
  return {
    source: readFileSync(outfile, 'utf8'),
    result: JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' })),
  };
}

it("gives zlib's crc32 for text, bytes and a running value", () => {
  const bytes = new TextEncoder().encode('The quick brown fox jumps over the lazy dog');

  expect(crc32('hello')).toBe(zlibCrc32('hello'));
  expect(crc32(bytes)).toBe(0x414fa339);
  expect(crc32(bytes.subarray(10), crc32(bytes.subarray(0, 10)))).toBe(crc32(bytes));
});

it("keeps the SDK's event-stream checksum in a function bundle, loading zlib on the first message instead of at start", async () => {
  const { source, result } = await bundleAndRun(
    'event-streams',
    "export { EventStreamCodec } from '@smithy/core/event-streams'; export { fromUtf8, toUtf8 } from '@smithy/core/serde';",
    `const { EventStreamCodec, fromUtf8, toUtf8 } = bundle;
    const atStart = loaded('zlib');
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const message = codec.encode({ headers: { ':event-type': { type: 'string', value: 'Stats' } }, body: fromUtf8('{"ok":true}') });
    const decoded = codec.decode(message);
    const corrupted = message.slice();
    corrupted[corrupted.length - 6] ^= 1;
    let refused = '';
    try { codec.decode(corrupted); } catch (error) { refused = error.message; }
    process.stdout.write(JSON.stringify({ atStart, afterMessage: loaded('zlib'), body: toUtf8(decoded.body), refused }));`,
  );

  // No static import of zlib, which Node would load with the module.
  expect(source).not.toMatch(/from\s*["'](node:)?zlib["']/);
  expect(result).toEqual({ atStart: false, afterMessage: true, body: '{"ok":true}', refused: expect.stringMatching(/checksum/) });
});

it("gives the SDK's user agent the process's own env and versions, without Node opening stdin, stdout, stderr or the report at load", async () => {
  const { source, result } = await bundleAndRun(
    'process',
    "export { env, versions } from 'node:process';",
    `process.stdout.write(JSON.stringify({
      same: bundle.env === process.env && bundle.versions === process.versions,
      loaded: ['process', 'internal/process/report', 'internal/fs/sync_write_stream'].filter(loaded),
    }));`,
  );

  expect(source).not.toMatch(/from\s*["'](node:)?process["']/);
  expect(result).toEqual({ same: true, loaded: [] });
});

it("loads @middy/core's web streams on first use, and its ReadableStream answers instanceof as the real one", async () => {
  const { source, result } = await bundleAndRun(
    'middy-streaming',
    "export { default as middy } from '@middy/core'; export { ReadableStream } from '#shared/platform/aws/middy-streaming.ts'; export { Readable } from 'node:stream';",
    `const { ReadableStream, Readable } = bundle;
    const atStart = loaded('internal/webstreams/readablestream');
    const isNodeStream = Readable.from(['x']) instanceof ReadableStream;
    const isWebStream = new globalThis.ReadableStream() instanceof ReadableStream;
    process.stdout.write(JSON.stringify({ atStart, isWebStream, isNodeStream, afterUse: loaded('internal/webstreams/readablestream') }));`,
  );

  // @middy/core's own import of it now resolves to the stand-in.
  expect(source).not.toMatch(/from\s*["']node:stream\/web["']/);
  expect(result).toEqual({ atStart: false, isWebStream: true, isNodeStream: false, afterUse: true });
});

it("leaves DynamoDB's endpoint discovery out, which no command of the SDK uses, and the client still sends", async () => {
  // What makes the stand-in safe: the discovery middleware is added by a command or by nothing.
  const sdkCode = ['client-dynamodb', 'lib-dynamodb'].flatMap((pkg) =>
    readdirSync(join('node_modules/@aws-sdk', pkg, 'dist-es'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join('node_modules/@aws-sdk', pkg, 'dist-es', file), 'utf8')),
  );
  expect(sdkCode.filter((code) => /getEndpointDiscovery\w*Plugin|endpointCache/.test(code))).toEqual([]);

  const { source, result } = await bundleAndRun(
    'endpoint-discovery',
    `import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
    export const list = () => new DynamoDBClient({ endpoint: ${JSON.stringify(inject('dynamodbEndpoint'))}, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }).send(new ListTablesCommand({ Limit: 1 }));`,
    `const answer = await bundle.list();
    process.stdout.write(JSON.stringify({ tables: Array.isArray(answer.TableNames) }));`,
  );

  // mnemonist's LRU cache, by its own error message (minified code keeps no names).
  expect(source).not.toContain('capacity should be positive');
  expect(result).toEqual({ tables: true });
});
