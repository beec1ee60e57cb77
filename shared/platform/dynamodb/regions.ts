/**
 * Home regions (docs/regions.md). In a global table every replica accepts
 * writes, but conditions are checked against the replica written and
 * concurrent writes to one item are settled by last writer wins, so the
 * guarantees of one region hold across regions only when each account's
 * items are written in one region: its home. This module knows the
 * deployment's regions, which one a request arrived in, and the homes
 * already learnt during the request; shared/platform/dynamodb/client.ts routes by it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from '#shared/platform/config.ts';

export type RegionMode = typeof config.REGION_MODE;

/** The deployment's regions, the first being the default home; AWS_REGION alone when none are configured. */
export const DEPLOYMENT_REGIONS: readonly string[] = (() => {
  const listed =
    config.DEPLOYMENT_REGIONS?.split(',')
      .map((region) => region.trim())
      .filter(Boolean) ?? [];
  const regions = listed.length === 0 ? [config.AWS_REGION] : listed;
  if (!regions.includes(config.AWS_REGION)) throw new Error(`Invalid environment variable DEPLOYMENT_REGIONS: must include AWS_REGION (${config.AWS_REGION})`);
  return regions;
})();

/** Where `account create` puts an account unless told otherwise. */
export const DEFAULT_HOME_REGION = DEPLOYMENT_REGIONS[0]!;

/** True when calls for an account go to its home region's replica rather than the local one. */
export function routesToHome(): boolean {
  return config.REGION_MODE === 'home' && DEPLOYMENT_REGIONS.length > 1;
}

interface RegionScope {
  /** The region whose API, queue or event bus delivered the work. */
  readonly arrival: string;
  /** Homes learnt in this scope, so an account's home is looked up once per request. */
  readonly homes: Map<string, string>;
}

const scopes = new AsyncLocalStorage<RegionScope>();

/** The region the current request arrived in: the function's own, unless a test simulates another. */
export function localRegion(): string {
  return scopes.getStore()?.arrival ?? config.AWS_REGION;
}

/**
 * Runs one invocation (a request, a queue batch, an event) with its own
 * memory of homes. `arrival` stands in for the function's region when tests
 * run both regions' handlers in one process.
 */
export function inRegionScope<T>(fn: () => Promise<T>, arrival: string = localRegion()): Promise<T> {
  return scopes.run({ arrival, homes: new Map() }, fn);
}

/** The home of `accountId` if this invocation has learnt it. */
export function knownHome(accountId: string): string | undefined {
  return scopes.getStore()?.homes.get(accountId);
}

/** Remembers an account's home for the rest of the invocation (the key check learns it). */
export function rememberHome(accountId: string, region: string): void {
  scopes.getStore()?.homes.set(accountId, region);
}

/**
 * Runs `fn` treating `region` as the account's home, without asking the
 * table: creating the account, reading where the home might be, moving it.
 */
export function withHome<T>(accountId: string, region: string, fn: () => Promise<T>): Promise<T> {
  const outer = scopes.getStore();
  return scopes.run({ arrival: outer?.arrival ?? config.AWS_REGION, homes: new Map([...(outer?.homes ?? []), [accountId, region]]) }, fn);
}

/** Refuses a region that is not one of the deployment's. */
export function assertDeploymentRegion(region: string): void {
  if (!DEPLOYMENT_REGIONS.includes(region)) throw new Error(`Unknown region ${region}: the deployment's regions are ${DEPLOYMENT_REGIONS.join(', ')}`);
}
