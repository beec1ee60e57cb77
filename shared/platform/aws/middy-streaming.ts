/**
 * Stands in for `node:stream/web` where @middy/core imports it (an esbuild
 * plugin in lib/bundling.ts, for that importer only; the local server and the
 * tests keep the real one).
 *
 * @middy/core uses it only in its response-streaming mode (`streamifyResponse`:
 * `instanceof ReadableStream` on the body), which no function here turns on.
 * As a static import of an ES module, Node loaded its web-streams
 * implementation at every cold start of every function; this loads it on the
 * first test instead. (Its other streaming import, `node:stream/promises`,
 * comes with `node:stream`, which the SDK loads anyway.)
 */
/** Not the class: `instanceof` asks only its right side's `Symbol.hasInstance`. */
export const ReadableStream = {
  [Symbol.hasInstance](value: unknown): boolean {
    // Not an import, which would load the module with the bundle; not createRequire either, whose name the bundle banner takes.
    return value instanceof process.getBuiltinModule('node:stream/web').ReadableStream;
  },
};
