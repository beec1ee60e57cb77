import { describe, expect, it } from 'vitest';
import { isId, newId } from '#shared/platform/ids.ts';

describe('ids', () => {
  it('have the kind prefix and 20 base62 characters', () => {
    const id = newId('con');

    expect(id).toMatch(/^con_[0-9A-Za-z]{20}$/);
    expect(isId('con', id)).toBe(true);
    expect(isId('aud', id)).toBe(false);
    expect(isId('con', `${id}x`)).toBe(false);
  });

  it('sort by creation, also within one millisecond and when the clock steps back', () => {
    const at = Date.parse('2026-11-21T12:00:00Z');
    const ids = [newId('con', at), newId('con', at), newId('con', at), newId('con', at - 5), newId('con', at + 1)];

    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sort by time across milliseconds', () => {
    const earlier = newId('con', Date.parse('2026-01-01T00:00:00Z') + 10_000_000);
    const later = newId('con', Date.parse('2027-01-01T00:00:00Z') + 10_000_000);

    expect(earlier.slice(4, 12) < later.slice(4, 12)).toBe(true);
  });
});
