/**
 * Stands in for `@aws-sdk/middleware-endpoint-discovery` in the function
 * bundles (an esbuild alias in lib/bundling.ts; the local server and the tests
 * keep the real one).
 *
 * The DynamoDB client resolves endpoint-discovery settings when it is built,
 * and with them a 1,000-entry LRU cache of discovered endpoints (mnemonist,
 * about 9 KB with the cache and its command), but no DynamoDB command of this
 * SDK adds the discovery middleware that would read them
 * (`test/aws/builtin-stand-ins.test.ts` checks the SDK's code for one), so
 * the cache was built at every cold start and never used. Any other use of
 * the package fails the build: this exports nothing else, and an import that
 * would be undefined is an error.
 */

/** The settings' loader, reading nothing: its provider is never called, and it answers undefined, the SDK's default. */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector: (): undefined => undefined,
  configFileSelector: (): undefined => undefined,
  default: undefined,
};

/** The client's configuration as given: no endpoint cache, which nothing would read. */
export function resolveEndpointDiscoveryConfig<Config>(input: Config): Config {
  return input;
}
