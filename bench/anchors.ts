/**
 * What the benchmark compares Postlane with: the latency in AWS estimated
 * from a request's measured depth, beside published API latencies of other
 * providers, and the all-in cost per 1,000 emails beside their list prices.
 * Every figure names its source; none is measured here.
 */
import type { CostPerMillion } from './cost.ts';

export const LATENCY = {
  /**
   * One DynamoDB call in the same region, p50: AWS describes DynamoDB as
   * "single-digit millisecond" at any scale (aws.amazon.com/dynamodb); 5 ms
   * is the middle of that range, as an assumption, not a measurement.
   */
  dynamoCallMs: 5,
  /**
   * One SES v2 SendEmail, p50: Knock's measured median for Amazon SES below,
   * taken from outside AWS, so an upper bound for a call from the same region.
   */
  sesSendMs: 127,
} as const;

/**
 * Knock, "Email API benchmarks" (knock.app/email-api-benchmarks, and the
 * per-provider pages), median API response time over a trailing 90-day window
 * ending 2026-03-12, as published there; not re-measured here.
 */
export const PUBLISHED_P50_MS = {
  source: 'Knock, Email API benchmarks (knock.app/email-api-benchmarks), p50 over the 90 days to 2026-03-12',
  postmark: 33,
  resend: 79,
  ses: 127,
} as const;

/**
 * List prices per 1,000 emails at the plan sizes named, as the providers'
 * pricing pages gave them (resend.com/pricing, postmarkapp.com/pricing; read
 * 2026-11, not re-verified in this run): Resend Pro $20 a month for 50,000
 * emails; Postmark Basic $15 a month for 10,000 emails.
 */
export const LIST_PRICES_PER_1000 = {
  source: 'resend.com/pricing (Pro, $20 for 50,000 a month), postmarkapp.com/pricing (Basic, $15 for 10,000 a month), read 2026-11',
  resend: 20 / 50,
  postmark: 15 / 10,
} as const;

/** SES outbound, per 1,000 emails (aws.amazon.com/ses/pricing). */
export const SES_PER_1000 = 0.1;

/** Estimated p50 in AWS: each sequential DynamoDB step, plus the SES call for a send. */
export function estimatedLatencyMs(depth: number, sendsMail: boolean): number {
  return depth * LATENCY.dynamoCallMs + (sendsMail ? LATENCY.sesSendMs : 0);
}

/** All-in AWS cost of 1,000 one-recipient sends: the request's Lambda, DynamoDB and HTTP API cost, plus SES. */
export function costPer1000Emails(send: CostPerMillion): number {
  return send.total / 1000 + SES_PER_1000;
}
