/**
 * Where webhook deliveries may go. A customer chooses the URL, so without a
 * check a delivery is a request from inside the deployment to wherever it
 * names: the instance metadata service, a VPC address, the local stack.
 * Deployed, only `https` to public unicast addresses is allowed; the check
 * runs at delivery time on the addresses DNS gave, and the connection is made
 * to the address checked (see delivery-client.ts), so a name cannot resolve
 * to a public address for the check and a private one for the connection.
 * Locally (a DynamoDB endpoint is configured, as in `npm start` and the
 * tests), `http` and loopback addresses are allowed too, so a test can run a
 * real receiver on 127.0.0.1.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { config } from '#shared/config.ts';
import { PostlaneError } from '#shared/errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface UrlPolicy {
  /** Local runs: `http` and loopback addresses are allowed. */
  allowLocal: boolean;
  resolve: Resolver;
}

/** Every address of a name, as the system resolver gives them. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export function configuredUrlPolicy(): UrlPolicy {
  return { allowLocal: config.DYNAMODB_ENDPOINT !== undefined, resolve: systemResolver };
}

/**
 * The class of an address, `unicast` for a public one: ipaddr.js's ranges
 * (private, carrierGradeNat, loopback, linkLocal, uniqueLocal, multicast,
 * unspecified, reserved, NAT64 and 6to4 forms, …). An IPv4-mapped IPv6
 * address is judged as the IPv4 address it carries.
 */
export function addressClass(address: string): string {
  const parsed = ipaddr.parse(address);
  const judged = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return judged.range();
}

function allowedAddress(address: string, policy: UrlPolicy): boolean {
  const range = addressClass(address);
  return range === 'unicast' || (policy.allowLocal && range === 'loopback');
}

export class UnsafeUrlError extends PostlaneError {
  override readonly name = 'UnsafeUrlError';
  constructor(message: string) {
    super('INVALID_WEBHOOK_URL', message, { field: 'url' });
  }
}

/** The URL's host without IPv6 brackets: `[::1]` → `::1`. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The checks that need no DNS: scheme, credentials, length, and an address literal's class. */
export function parseWebhookUrl(text: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeUrlError('url must be an absolute URL');
  }
  const schemes = policy.allowLocal ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new UnsafeUrlError(policy.allowLocal ? 'url must use https or http' : 'url must use https');
  if (text.length > 2048) throw new UnsafeUrlError('url must be at most 2048 characters');
  if (url.username || url.password) throw new UnsafeUrlError('url must not carry credentials');
  const host = hostOf(url);
  if (isIP(host) && !allowedAddress(host, policy)) throw new UnsafeUrlError(`url must not point to a ${addressClass(host)} address`);
  return url;
}

/**
 * The address a delivery to `text` connects to: the first the name resolves
 * to, once every one of them is public (one private answer among public ones
 * refuses the lot: a resolver may return them in any order).
 */
export async function resolveWebhookTarget(text: string, policy: UrlPolicy): Promise<{ url: URL; target: ResolvedAddress }> {
  const url = parseWebhookUrl(text, policy);
  const host = hostOf(url);
  const family = isIP(host);
  if (family) return { url, target: { address: host, family: family === 6 ? 6 : 4 } };
  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    throw new UnsafeUrlError(`url's host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`url's host ${host} does not resolve`);
  const refused = addresses.find(({ address }) => !allowedAddress(address, policy));
  if (refused) throw new UnsafeUrlError(`url's host resolves to a ${addressClass(refused.address)} address`);
  return { url, target: addresses[0]! };
}
