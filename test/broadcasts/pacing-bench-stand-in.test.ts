/**
 * The benchmark's SES stand-in (bench/broadcast.ts) holds the engine to SES's
 * maximum send rate as SES documents it: at most the rate a second sustained,
 * short bursts allowed. A stand-in stricter than SES (whole calendar seconds)
 * throttled a sender at exactly the rate whenever jitter put one message more
 * into one second; a looser one would let the benchmark pass an engine that
 * SES would throttle. Pure: the times are given, no clock.
 */
import { describe, expect, it } from 'vitest';
import { sesRateLimit } from '../../bench/broadcast.ts';

const RATE = 40;
const INTERVAL_MS = 1000 / RATE;

/** How many of the sends at these times the stand-in refuses. */
function refusals(times: readonly number[]): number {
  const accepts = sesRateLimit(RATE);
  return times.filter((time) => !accepts(time)).length;
}

describe('the SES stand-in of the broadcast benchmark', () => {
  it('accepts a sender at exactly the rate, however its messages jitter across calendar seconds', () => {
    // One minute at the rate, the last message of every other second 30 ms late: it lands in the next second, which gets 41.
    const times = Array.from({ length: 60 * RATE }, (_, index) => index * INTERVAL_MS + (index % (2 * RATE) === RATE - 1 ? 30 : 0));
    const perSecond = new Map<number, number>();
    for (const time of times) perSecond.set(Math.floor(time / 1000), (perSecond.get(Math.floor(time / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeGreaterThan(RATE);

    expect(refusals(times)).toBe(0);
  });

  it('accepts a short burst: a sender late by most of a second catching up', () => {
    // A second at the rate, nothing for a second, then 70 over the next one.
    const times = [
      ...Array.from({ length: RATE }, (_, index) => index * INTERVAL_MS),
      ...Array.from({ length: 70 }, (_, index) => 2_000 + index * (1000 / 70)),
    ];

    expect(refusals(times)).toBe(0);
  });

  it('refuses a sustained 10% above the rate: over a minute, no more than the rate plus one burst', () => {
    const times = Array.from({ length: 66 * RATE }, (_, index) => index * (INTERVAL_MS / 1.1));

    const refused = refusals(times);

    // 2,640 tried in 60 s; the bucket holds 40 at the start and gains 40 a second: at most 2,440 accepted, and no fewer than the rate's 2,400.
    expect(times.length - refused).toBeLessThanOrEqual(60 * RATE + RATE);
    expect(times.length - refused).toBeGreaterThanOrEqual(60 * RATE);
  });
});
