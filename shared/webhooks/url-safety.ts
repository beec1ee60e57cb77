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
import { config } from '#shared/platform/config.ts';
import { PostlaneError } from '#shared/platform/errors.ts';

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
 * IPv6 ranges ipaddr.js 2.2 calls `unicast` where no receiver may be:
 * `::a.b.c.d` (RFC 4291's deprecated IPv4-compatible form; `::` and `::1` are
 * classed before), local-use NAT64 (RFC 8215: translated to whatever IPv4
 * network its operator chose, the IPv4 address placed by a prefix length
 * only the operator knows), site-local (RFC 3879, deprecated, still routed
 * inside some networks), documentation (RFC 9637) and SRv6 segment ids
 * (RFC 9602).
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const UNROUTED_IPV6: [string, [ipaddr.IPv6, number]][] = [
  ['ipv4Compatible', IPV4_COMPATIBLE],
  ['nat64Local', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
  ['siteLocal', ipaddr.IPv6.parseCIDR('fec0::/10')],
  ['documentation', ipaddr.IPv6.parseCIDR('3fff::/20')],
  ['srv6', ipaddr.IPv6.parseCIDR('5f00::/16')],
];

/** Public IPv6 unicast is allocated from here only: anything else is reserved by the IETF. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries, in the forms that carry one at
 * a known place: mapped and translated (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`),
 * NAT64's well-known prefix (64:ff9b::/96), IPv4-compatible (`::a.b.c.d`),
 * 6to4 (2002:AABB:CCDD::/48) and Teredo (the client's address, inverted).
 */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const [, second = 0, third = 0, , , , seventh = 0, eighth = 0] = address.parts;
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return ipv4Of(seventh, eighth);
    case '6to4':
      return ipv4Of(second, third);
    case 'teredo':
      return ipv4Of(seventh ^ 0xffff, eighth ^ 0xffff);
    case 'unicast':
      return address.match(IPV4_COMPATIBLE) ? ipv4Of(seventh, eighth) : undefined;
    default:
      return undefined;
  }
}

/**
 * The class of an address, `unicast` for a public one: ipaddr.js's ranges
 * (private, carrierGradeNat, loopback, linkLocal, uniqueLocal, multicast,
 * unspecified, reserved, …) and UNROUTED_IPV6. An IPv6 address that carries
 * an IPv4 one is the class of that address when it is not public (so
 * `[::127.0.0.1]`, `[64:ff9b::a9fe:a9fe]` and `[2002:a00:1::]` are loopback,
 * link-local and private); one that carries a public address is still
 * refused as what it is (NAT64, 6to4, Teredo, IPv4-compatible: a translator
 * or relay between), except the IPv4-mapped form, which a socket connects to
 * as the IPv4 address itself. Any other IPv6 address outside 2000::/3 is
 * `reserved`.
 */
export function addressClass(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const ipv6 = parsed as ipaddr.IPv6;
  const range = ipv6.range();
  const embedded = embeddedIPv4(ipv6, range)?.range();
  if (range === 'ipv4Mapped' || (embedded !== undefined && embedded !== 'unicast')) return embedded!;
  if (range !== 'unicast') return range;
  const unrouted = UNROUTED_IPV6.find(([, cidr]) => ipv6.match(cidr));
  if (unrouted) return unrouted[0];
  return ipv6.match(GLOBAL_UNICAST) ? 'unicast' : 'reserved';
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
