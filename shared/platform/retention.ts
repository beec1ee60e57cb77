import { config } from './config.ts';

const DAY_MS = 86_400_000;

/** When something made at `nowMs` expires (its TTL, epoch seconds): RETENTION_DAYS later. */
export function retentionExpiry(nowMs: number, days: number = config.RETENTION_DAYS): number {
  return Math.floor((nowMs + days * DAY_MS) / 1000);
}

/** The oldest creation time (epoch ms) still within retention at `nowMs`. */
export function retentionHorizon(nowMs: number, days: number = config.RETENTION_DAYS): number {
  return nowMs - days * DAY_MS;
}
