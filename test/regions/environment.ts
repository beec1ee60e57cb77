/**
 * The environment of a two-region test file, set before anything reads
 * shared/platform/config.ts (which reads it once): so this module imports nothing.
 * `await vi.hoisted(async () => (await import('./environment.ts')).twoRegionEnvironment('home', 'home-regions'))`
 */
export const US = 'us-east-1';
export const EU = 'eu-west-1';

/** Both regions, a table pair of the file's own (so the replicas can be compared whole), and the region mode. */
export function twoRegionEnvironment(mode: 'home' | 'local' | 'independent', name: string): void {
  const table = `${process.env.TABLE_NAME}-${name}`;
  Object.assign(process.env, {
    TABLE_NAME: table,
    DEPLOYMENT_REGIONS: `${US},${EU}`,
    DYNAMODB_REPLICA_TABLES: `${EU}=${table}-eu`,
    REGION_MODE: mode,
    // Deployed, the key is a Secrets Manager secret replicated to every region.
    SIGNING_SECRET: 'regions-test-signing-secret-0123456789abcdef',
  });
}
