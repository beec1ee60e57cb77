import { vi } from 'vitest';

/**
 * Makes sure the current fixed window has at least `room` seconds left, so a burst of requests falls
 * inside one window: when it has less, the clock (Date only, still running) moves on to the next
 * window's start rather than the test waiting up to `room` seconds for it. Undo with `vi.useRealTimers()`.
 */
export function makeRoom(windowSeconds: number, room: number): void {
  const now = Date.now();
  const left = windowSeconds * 1000 - (now % (windowSeconds * 1000));
  if (left < room * 1000) vi.useFakeTimers({ toFake: ['Date'], now: now + left + 50, shouldAdvanceTime: true });
}
