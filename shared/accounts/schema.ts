import * as v from 'valibot';
import { fieldRule, paginationQuery, requiredText, strictObject } from '#shared/platform/schema/common.ts';
import { nullableText, timestamp } from '#shared/platform/schema/replies.ts';
import { isDomainName } from '#shared/domains/schema.ts';

const MAX_KEY_NAME = 50;

const keyName = requiredText(MAX_KEY_NAME);
const permission = v.picklist(['full', 'sending']);
const env = v.picklist(['live', 'test']);

/**
 * A key's `domain` binds a sending key to one verified domain of the account;
 * a full key may do everything, so a domain would restrict nothing it could
 * not undo with a key of its own making.
 */
export const createApiKeyBody = v.pipe(
  strictObject({
    name: keyName,
    permission: v.optional(permission, 'full'),
    env: v.optional(env, 'live'),
    domain: v.optional(
      v.pipe(v.string(), v.trim(), v.nonEmpty(), v.toLowerCase(), v.check(isDomainName, 'must be a domain name such as example.com or mail.example.com')),
    ),
  }),
  fieldRule('domain', (input) => input.domain === undefined || input.permission === 'sending', 'is allowed only with permission "sending"'),
);
export type CreateApiKeyInput = v.InferOutput<typeof createApiKeyBody>;

export const updateApiKeyBody = strictObject({ name: v.optional(keyName), disabled: v.optional(v.boolean()) });
export type UpdateApiKeyInput = v.InferOutput<typeof updateApiKeyBody>;

export const listApiKeysQuery = v.object(paginationQuery(20, 100));

// Replies.

const keyFields = {
  id: v.string(),
  name: v.string(),
  permission,
  env,
  /** The one domain a sending key may send from; null: any verified domain of the account. */
  domain: nullableText,
};

/** A key as listed: never its secret nor its hash, only the secret's last 4 characters to tell keys apart. */
export const apiKeySchema = v.strictObject({
  ...keyFields,
  disabled: v.boolean(),
  /** The secret's last 4 characters; null for a key made before they were kept. */
  hint: v.nullable(v.pipe(v.string(), v.length(4))),
  createdAt: timestamp,
  lastUsedAt: v.nullable(timestamp),
});

/** A new key, with the secret only this answer shows. */
export const createdApiKeySchema = v.strictObject({
  ...keyFields,
  key: v.pipe(v.string(), v.regex(/^svc_(live|test)_[0-9A-Za-z]+$/)),
  createdAt: timestamp,
});
