/**
 * Stands in for `node:zlib` in the function bundles (an esbuild alias in
 * lib/bundling.ts); the local server and the tests keep the real one.
 *
 * The bundles' one import of zlib is @smithy/core's `Crc32Node`
 * (`checksum/crc32/Crc32Node.js`): a static `import * as zlib` for
 * `zlib.crc32`, carried by every SDK client because its `Sha256` (SigV4)
 * comes from the same `@smithy/core/checksum` entry. An ES module's static
 * import is loaded whether or not it is called, and that CRC32 checks only
 * event-stream messages, which no operation the functions call uses (the
 * SDK does not check DynamoDB's `x-amz-crc32` header). So the bundle gets
 * zlib's own `crc32`, with zlib and its native binding loaded on the first
 * checksum instead of at every cold start (under a millisecond, but none of
 * it needed).
 */
let zlib: typeof import('node:zlib') | undefined;

/** `zlib.crc32`, the same value: `crc32('hello')` is 907060870, `crc32('lo', crc32('hel'))` too. */
export function crc32(data: string | NodeJS.ArrayBufferView, value?: number): number {
  // Not an import, which would load zlib with the module; not createRequire either, whose name the bundle banner takes.
  zlib ??= process.getBuiltinModule('node:zlib');
  return zlib.crc32(data, value);
}
