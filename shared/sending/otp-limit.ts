import { admitOtpSend } from './otp-window-store.ts';
import { RateLimitError } from '#shared/platform/errors.ts';
import { PLAN_LIMITS } from '#shared/accounts/plans.ts';
import type { Principal } from '#shared/accounts/api-keys.ts';

/** OTP emails per recipient within 5 minutes, by plan (docs/api.md, "POST /api/otp/send"). */
export const OTP_WINDOW_MS = 5 * 60 * 1000;

/**
 * Counts an OTP to `recipient` (lower-cased) in the account's sliding window,
 * test keys included; throws RATE_LIMIT_EXCEEDED with `retryAfter` = seconds
 * until the oldest send in the window leaves it.
 */
export async function admitOtp(principal: Principal, recipient: string, now: Date): Promise<void> {
  const limit = PLAN_LIMITS[principal.plan].otpPerRecipientPer5Minutes;
  const at = now.getTime();
  const admission = await admitOtpSend(principal.accountId, recipient.toLowerCase(), at, OTP_WINDOW_MS, limit);
  if (admission.admitted) return;
  const oldest = admission.recent[0] ?? at;
  const retryAfter = Math.max(1, Math.ceil((oldest + OTP_WINDOW_MS - at) / 1000));
  throw new RateLimitError(`At most ${limit} OTP emails per recipient within 5 minutes; try again in ${retryAfter} s`, retryAfter);
}
