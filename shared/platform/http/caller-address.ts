import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '#shared/platform/config.ts';

/** The header every distribution adds to its API origin's requests (lib/dashboard-site.ts), holding ORIGIN_VERIFY_SECRET. */
export const ORIGIN_VERIFY_HEADER = 'x-postlane-origin-verify';

/**
 * Behind the distribution (lib/dashboard-site.ts) API Gateway sees a CloudFront
 * edge, which many callers share, so the per-address form limit would count them
 * all as one. CloudFront sets `CloudFront-Viewer-Address` (`ip:port`, IPv6
 * without brackets) itself, over anything a viewer sends; but a client that goes
 * around CloudFront to the stage's own address (or `origin.<domain>`) could write
 * it, and so get a fresh limit per request. So it counts only beside the secret
 * header only the distributions add; else, and wherever no secret is configured
 * (locally), API Gateway's address counts.
 *
 * `callerAddress({ headers: { 'cloudfront-viewer-address': '2001:db8::7:51324', 'x-postlane-origin-verify': secret }, … }, secret) // '2001:db8::7'`
 */
export function callerAddress(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  originSecret: string | undefined = config.ORIGIN_VERIFY_SECRET,
): string {
  const viewer = event.headers?.['cloudfront-viewer-address'];
  const port = viewer?.lastIndexOf(':') ?? -1;
  if (viewer && port > 0 && fromDistribution(event.headers?.[ORIGIN_VERIFY_HEADER], originSecret)) return viewer.slice(0, port);
  return event.requestContext?.http?.sourceIp ?? '';
}

/** In constant time, so that timing tells an attacker nothing of the secret; compared as digests, which have one length whatever was sent. */
function fromDistribution(sent: string | undefined, secret: string | undefined): boolean {
  if (!secret || sent === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(secret));
}
