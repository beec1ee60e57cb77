/**
 * Stands in for `node:process` in the function bundles (an esbuild alias in
 * lib/bundling.ts); the local server and the tests keep the real one.
 *
 * The SDK's user agent (`@aws-sdk/core`, util-user-agent-node) imports `env`
 * and `versions` from `node:process`. Importing a built-in as an ES module
 * makes Node copy every property of its CommonJS exports into the module's
 * namespace, which for `process` runs the lazy getters of `stdin`, `stdout`,
 * `stderr` and `report`: three streams and the diagnostic report's binding,
 * about 3 ms of every cold start, none of which the SDK reads. These are the
 * same objects, taken from the global `process`.
 */
export const { env, versions } = process;
