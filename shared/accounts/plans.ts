/** Plan limits: docs/api.md, "Rate limits" and "Quota". */
export const PLANS = ['free', 'pro', 'growth', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerSecond: number;
  /** `null`: no daily cap. */
  requestsPerDay: number | null;
  otpPerRecipientPer5Minutes: number;
  monthlyEmailQuota: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { requestsPerSecond: 10, requestsPerDay: 1_000, otpPerRecipientPer5Minutes: 3, monthlyEmailQuota: 3_000 },
  pro: { requestsPerSecond: 50, requestsPerDay: 50_000, otpPerRecipientPer5Minutes: 5, monthlyEmailQuota: 50_000 },
  growth: { requestsPerSecond: 100, requestsPerDay: 200_000, otpPerRecipientPer5Minutes: 6, monthlyEmailQuota: 150_000 },
  business: { requestsPerSecond: 200, requestsPerDay: null, otpPerRecipientPer5Minutes: 8, monthlyEmailQuota: 1_000_000 },
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
