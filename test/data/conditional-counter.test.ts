/**
 * The conditional counter (shared/platform/dynamodb/conditional-counter.ts)
 * against DynamoDB Local: the update under its limit, what a refusal learns
 * from the item as it was, and the roll-over round, with writers racing as
 * Lambda instances do.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countIf, inRounds, NEXT_ROUND, type CounterWrite } from '#shared/platform/dynamodb/conditional-counter.ts';
import { getMapped } from '#shared/platform/dynamodb/client.ts';

const counterKey = () => ({ pk: `TEST#COUNTER#${randomUUID()}`, sk: 'COUNTER' });
const stored = (key: CounterWrite['key']) => getMapped(key, (item) => item);

/** One event more, at most `most`, stamping a list, a string and a flag so the refusal's item has every kind of value. */
const countOne = (key: CounterWrite['key'], most: number): CounterWrite => ({
  key,
  update: 'SET tags = list_append(if_not_exists(tags, :empty), :tag), #name = :name, active = :true ADD n :one',
  limit: { underLimit: 'attribute_not_exists(n) OR n < :most' },
  names: { '#name': 'name' },
  values: { ':empty': [], ':tag': ['a'], ':name': 'counter', ':true': true, ':one': 1, ':most': most },
});

/** A window's number `w` and its count `n`: counts in `window`, or in a later one another writer opened; opens it when the item holds an earlier one. */
async function countInWindow(key: CounterWrite['key'], window: number, most: number) {
  let expected = window;
  let rounds = 0;
  const answer = await inRounds<{ admitted: true; window: number; n: number } | { admitted: false; window: number }>(
    async () => {
      rounds++;
      const counted = await countIf({
        key,
        update: 'ADD n :one',
        limit: { sameWindow: 'w = :w', underLimit: 'n < :most' },
        values: { ':one': 1, ':w': expected, ':most': most },
      });
      if (counted.admitted) return { admitted: true, window: expected, n: Number(counted.item.n) };
      const stored = Number(counted.old?.w);
      if (stored === expected) return { admitted: false, window: expected };
      if (stored > expected) {
        expected = stored;
        return NEXT_ROUND;
      }
      const opened = await countIf({
        key,
        update: 'SET w = :w, n = :one',
        limit: { earlierWindow: 'attribute_not_exists(w) OR w < :w' },
        values: { ':one': 1, ':w': expected },
      });
      return opened.admitted ? { admitted: true, window: expected, n: 1 } : NEXT_ROUND;
    },
    { rounds: 4, exhausted: () => ({ admitted: false, window: expected }) },
  );
  return { ...answer, rounds };
}

describe('the update under its limit', () => {
  it('counts while the limit holds, then is refused with the item as it was, in plain values, and writes nothing', async () => {
    const key = counterKey();

    const first = await countIf(countOne(key, 2));
    const second = await countIf(countOne(key, 2));
    const refused = await countIf(countOne(key, 2));

    expect(first).toEqual({ admitted: true, item: { n: 1, tags: ['a'], name: 'counter', active: true } });
    expect(second).toMatchObject({ admitted: true, item: { n: 2 } });
    expect(refused).toEqual({ admitted: false, old: { ...key, n: 2, tags: ['a', 'a'], name: 'counter', active: true } });
    expect(await stored(key)).toMatchObject({ n: 2, tags: ['a', 'a'] });
  });

  it('is refused without an old item when there is none', async () => {
    const key = counterKey();

    const refused = await countIf({ key, update: 'ADD n :one', limit: { exists: 'attribute_exists(pk)' }, values: { ':one': 1 } });

    expect(refused).toEqual({ admitted: false, old: undefined });
    expect(await stored(key)).toBeUndefined();
  });

  it('holds every named clause on its own, an OR inside one included', async () => {
    const key = counterKey();
    await countIf({ key, update: 'SET n = :most', limit: { fresh: 'attribute_not_exists(pk)' }, values: { ':most': 3 } });

    // Joined without parentheses this would read `attribute_not_exists(w) OR (w = :w AND n < :most)`, true for an item without `w`.
    const refused = await countIf({
      key,
      update: 'ADD n :one',
      limit: { window: 'attribute_not_exists(w) OR w = :w', underLimit: 'n < :most' },
      values: { ':one': 1, ':w': 7, ':most': 3 },
    });

    expect(refused).toMatchObject({ admitted: false, old: { n: 3 } });
  });

  it('sends only the placeholders its expressions name, so a clause a plan does not have can leave its values behind', async () => {
    const key = counterKey();

    const counted = await countIf({
      key,
      update: 'ADD n :one',
      limit: { perSecond: 'attribute_not_exists(n) OR n < :most', perDay: undefined },
      names: { '#day': 'day' },
      values: { ':one': 1, ':most': 5, ':dayLimit': 100 },
    });

    expect(counted).toEqual({ admitted: true, item: { n: 1 } });
  });
});

describe('the roll-over round', () => {
  it('writes again in the window the refusal names when another writer already opened it', async () => {
    const key = counterKey();
    await countInWindow(key, 5, 3);

    const late = await countInWindow(key, 4, 3);

    expect(late).toEqual({ admitted: true, window: 5, n: 2, rounds: 2 });
  });

  it('answers in one round when the limit, not the window, refused', async () => {
    const key = counterKey();
    for (let i = 0; i < 3; i++) await countInWindow(key, 5, 3);

    const full = await countInWindow(key, 5, 3);

    expect(full).toEqual({ admitted: false, window: 5, rounds: 1 });
    expect(await stored(key)).toMatchObject({ w: 5, n: 3 });
  });

  it('admits exactly the limit when many writers race to open the same new window', async () => {
    const key = counterKey();
    await countInWindow(key, 1, 10);

    const answers = await Promise.all(Array.from({ length: 25 }, () => countInWindow(key, 2, 10)));

    expect(answers.filter((answer) => answer.admitted)).toHaveLength(10);
    expect(answers.filter((answer) => !answer.admitted && answer.rounds < 4)).toHaveLength(15);
    expect(new Set(answers.flatMap((answer) => (answer.admitted ? [answer.n] : [])))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => i + 1)));
    expect(await stored(key)).toMatchObject({ w: 2, n: 10 });
  });

  it('stops after its rounds and answers what exhaustion says', async () => {
    const key = counterKey();
    await countIf({ key, update: 'SET n = :zero', limit: { fresh: 'attribute_not_exists(pk)' }, values: { ':zero': 0 } });
    let writes = 0;

    const answer = await inRounds(
      async () => {
        writes++;
        const counted = await countIf({ key, update: 'ADD n :one', limit: { neverHolds: 'attribute_not_exists(pk)' }, values: { ':one': 1 } });
        return counted.admitted ? 'admitted' : NEXT_ROUND;
      },
      { rounds: 3, exhausted: () => 'contended' },
    );

    expect(answer).toBe('contended');
    expect(writes).toBe(3);
  });
});
