/**
 * SES's maximum send rate in this region (its quotas are per region): what
 * the broadcast engine paces the region's sending by (docs/broadcasts.md,
 * "Pacing"). `SES_MAX_SEND_RATE` replaces the reading for a stand-in that
 * sends at a rate of its own (the benchmark) or has no account to read.
 */
import { GetAccountCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#shared/platform/config.ts';
import { ses } from './transport.ts';

/** SES raises a quota on request, not by the second: one read per container every few minutes follows it closely enough. */
export const SEND_QUOTA_TTL_MS = 5 * 60_000;

let cached: { rate: number; readAt: number } | undefined;

/** Messages per second SES accepts from this region's account: `14` for a new production account. */
export async function sesMaxSendRate(now = Date.now(), client: Pick<SESv2Client, 'send'> = ses): Promise<number> {
  if (config.SES_MAX_SEND_RATE !== undefined) return config.SES_MAX_SEND_RATE;
  if (cached && now - cached.readAt < SEND_QUOTA_TTL_MS) return cached.rate;
  // An emulator started without an account (aws-ses-v2-local reads it from AWS_SES_ACCOUNT) refuses GetAccount: say what to set.
  const { SendQuota } = await client.send(new GetAccountCommand({})).catch((error: unknown) => {
    throw new Error(`SES GetAccount failed (${(error as Error)?.name}): set SES_MAX_SEND_RATE to pace by a rate of your own`, { cause: error });
  });
  const rate = SendQuota?.MaxSendRate;
  if (!rate || rate <= 0) throw new Error('SES GetAccount answered no MaxSendRate: set SES_MAX_SEND_RATE');
  cached = { rate, readAt: now };
  return rate;
}
