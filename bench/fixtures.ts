/** Accounts, keys and senders the benchmark makes through the domain code, as `npm start` seeds its account. */
import { createAccount } from '#shared/accounts/service.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';

export interface BenchAccount {
  accountId: string;
  /** Live keys: each has its own per-second rate window, so load spread over them stays under the plan's limit. */
  liveKeys: string[];
  testKeys: string[];
  /** A sender address on a verified domain of the account. */
  from: string;
}

/** A `business` account (200 requests per second per key) with `keys` live and `keys` test keys, sending from example.com. */
export async function createBenchAccount(keys = 1): Promise<BenchAccount> {
  const { accountId } = await createAccount({ plan: 'business', name: 'Benchmark' });
  const make = (env: 'live' | 'test') =>
    Promise.all(Array.from({ length: keys }, async () => (await createApiKey({ accountId, env, permission: 'full' })).key));
  const [liveKeys, testKeys] = await Promise.all([make('live'), make('test')]);
  await verifyDomain(accountId, 'example.com', localVerifier);
  return { accountId, liveKeys, testKeys, from: 'bench@example.com' };
}

let sequence = 0;
/** An address no other request of the run uses. */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${process.pid}.${Date.now().toString(36)}.${(sequence++).toString(36)}@example.org`;
}

/** A published form body with an email and a name field. */
export function formBody(slug: string): Record<string, unknown> {
  return {
    title: 'Benchmark sign-up',
    slug,
    published: true,
    fields: [
      { id: 'email', type: 'email', label: 'Email', required: true },
      { id: 'firstName', type: 'text', label: 'First name' },
    ],
  };
}
