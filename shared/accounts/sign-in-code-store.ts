/**
 * Sign-in codes: one item per address, `SIGNIN#<email>` / `CODE`, holding the
 * current code's hash, when it expires and how many tries it has had, beside
 * the hour's window of codes issued (`windowStart`, `sent`). Every limit is a
 * write's condition (shared/platform/dynamodb/conditional-counter.ts), so no
 * Lambda instance can issue a sixth code in the hour or allow a sixth try.
 * Written for any address that asks, member or not: the request makes the
 * same calls whoever asks (docs/security.md, "Signing in").
 */
import { countIf, inRounds, NEXT_ROUND } from '#shared/platform/dynamodb/conditional-counter.ts';
import { tableName, updateReturning, type TransactItems } from '#shared/platform/dynamodb/client.ts';

const codeKey = (email: string) => ({ pk: `SIGNIN#${email}`, sk: 'CODE' });

export interface CodeLimits {
  /** Codes per address in an hour from the first. */
  perHour: number;
  /** How long a code holds, in milliseconds. */
  validMs: number;
  /** Tries a code allows, right or wrong. */
  tries: number;
}

const HOUR_MS = 3_600_000;

/**
 * Stores `codeHash` as the address's code, replacing any before it with a
 * fresh count of tries, unless the address had `perHour` codes in the hour
 * its window started: true when stored.
 */
export async function storeCode(email: string, codeHash: string, now: Date, limits: CodeLimits): Promise<boolean> {
  const values = {
    ':one': 1,
    ':zero': 0,
    ':now': now.getTime(),
    ':hourAgo': now.getTime() - HOUR_MS,
    ':most': limits.perHour,
    ':hash': codeHash,
    ':codeExpires': now.getTime() + limits.validMs,
    // Kept as long as its window counts; DynamoDB removes it some time after.
    ':expiresAt': Math.ceil((now.getTime() + HOUR_MS) / 1000),
  };
  const code = 'codeHash = :hash, codeExpiresAt = :codeExpires, tries = :zero, expiresAt = :expiresAt';
  return inRounds<boolean>(
    async () => {
      const counted = await countIf({
        key: codeKey(email),
        update: `SET sent = sent + :one, ${code}`,
        limit: { sameWindow: 'windowStart > :hourAgo', perHour: 'sent < :most' },
        values,
        returning: 'NONE',
      });
      if (counted.admitted) return true;
      if (typeof counted.old?.windowStart === 'number' && counted.old.windowStart > values[':hourAgo']) return false;
      const opened = await countIf({
        key: codeKey(email),
        update: `SET windowStart = :now, sent = :one, ${code}`,
        limit: { newWindow: 'attribute_not_exists(windowStart) OR windowStart <= :hourAgo' },
        values,
        returning: 'NONE',
      });
      // Refused: another request opened the window meanwhile; count in it.
      return opened.admitted ? true : NEXT_ROUND;
    },
    { rounds: 3, exhausted: () => false },
  );
}

/**
 * Counts one try of the address's code, provided it has one that has not
 * expired nor had its tries: the code's hash to compare, or undefined. The
 * try is counted before the comparison, so no more than `tries` guesses are
 * ever compared, however many arrive at once.
 */
export async function tryCode(email: string, now: Date, limits: CodeLimits): Promise<string | undefined> {
  const item = await updateReturning({
    Key: codeKey(email),
    UpdateExpression: 'SET tries = tries + :one',
    ConditionExpression: 'attribute_exists(codeHash) AND tries < :most AND codeExpiresAt > :now',
    ExpressionAttributeValues: { ':one': 1, ':most': limits.tries, ':now': now.getTime() },
  });
  return typeof item?.codeHash === 'string' ? item.codeHash : undefined;
}

/**
 * The transaction item that spends the code `codeHash`, for the sign-in it
 * grants: once only, and never one that was replaced meanwhile. The hour's
 * window stays.
 */
export function spendCode(email: string, codeHash: string): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: codeKey(email),
      UpdateExpression: 'REMOVE codeHash, codeExpiresAt, tries',
      ConditionExpression: 'codeHash = :hash',
      ExpressionAttributeValues: { ':hash': codeHash },
    },
  };
}
