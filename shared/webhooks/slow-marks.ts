/**
 * Which lane a delivery takes (queue.ts), from the account's slow marks
 * (docs/webhooks.md, "A slow endpoint"). Slowness belongs to the receiver, not
 * to the endpoint that names it: a mark is kept per account and host, so a
 * new path or query on the same host, or the same host behind a new
 * endpoint, is still slow; and once ACCOUNT_SLOW_HOSTS hosts of one account
 * are slow at the same time, every delivery of the account takes the slow
 * lane, so a tenant cannot escape by naming ever new hosts either (its own
 * subdomains, ports). Each mark lapses SLOW_MARK_MS after it is set; none is
 * cleared by anything a tenant does.
 */
import { updateSlowMarks, type SlowMarks } from './store.ts';
import type { WebhookLane } from './queue.ts';
import { ACCOUNT_SLOW_HOSTS, SLOW_MARK_MS } from './schedule.ts';

/**
 * The receiver a URL names, as marks key it: host and port (a URL's `host`:
 * lower-case, IDNs in punycode, IPv6 in its one normal form), without a
 * trailing dot (`example.com.` is `example.com`).
 */
export function receiverHost(url: string): string {
  return new URL(url).host.replace(/\.(?=(?::\d+)?$)/, '');
}

const holds = (until: string | undefined, now: number): until is string => until !== undefined && Date.parse(until) > now;

/** The lane of deliveries to `url` at `now`: slow while its host's mark or the account's holds. */
export function laneOf(marks: SlowMarks, url: string, now: number): WebhookLane {
  return holds(marks.accountUntil, now) || holds(marks.hosts[receiverHost(url)], now) ? 'slow' : 'normal';
}

/**
 * The marks once `host` was seen slow at `now`, or undefined when its mark
 * holds already (nothing to write: a mark is set once, never extended). Lapsed
 * marks are dropped; the account's is set when this mark makes
 * ACCOUNT_SLOW_HOSTS hosts slow at once.
 */
export function withSlowHost(marks: SlowMarks, host: string, now: number): SlowMarks | undefined {
  if (holds(marks.hosts[host], now)) return undefined;
  const until = new Date(now + SLOW_MARK_MS).toISOString();
  const hosts = { ...Object.fromEntries(Object.entries(marks.hosts).filter(([, hostUntil]) => holds(hostUntil, now))), [host]: until };
  const accountUntil = holds(marks.accountUntil, now) ? marks.accountUntil : Object.keys(hosts).length >= ACCOUNT_SLOW_HOSTS ? until : undefined;
  return { hosts, ...(accountUntil ? { accountUntil } : {}) };
}

/**
 * Marks the receiver of `url` slow from `now`: answers the marks written, or
 * undefined when its mark held already (another worker saw it first).
 */
export function markReceiverSlow(accountId: string, url: string, now: number): Promise<SlowMarks | undefined> {
  const host = receiverHost(url);
  return updateSlowMarks(accountId, (current) => withSlowHost(current, host, now));
}
