import { ADMINS, defineArea, resource } from '#shared/platform/http/contract.ts';
import { apiKeySchema, createApiKeyBody, createdApiKeySchema, listApiKeysQuery, updateApiKeyBody } from '#shared/accounts/schema.ts';

/**
 * API keys over the API: `full` keys and admins' sessions only (ADMINS), since
 * a key that makes keys can do anything any key can. Every change is written with its audit
 * event (`api_key.*`) in one transaction: PutItem beside the key's own write.
 */
const apiKey = resource('/api/api-keys', 'apiKey', 'API_KEY_NOT_FOUND', { schema: apiKeySchema, writeErrors: ['CONFLICT'], access: ADMINS });

export const apiKeys = defineArea('api-keys', {
  create: apiKey.create({
    body: createApiKeyBody,
    reply: createdApiKeySchema,
    // The account's plan (copied onto the key) and the bound domain; the key, the account's unchanged plan and the event in one transaction.
    table: ['GetItem', 'PutItem', 'ConditionCheckItem'],
    summary: 'Create an API key',
    description:
      '`key`, the secret, is in this answer only: store it now; only a hash is kept. A `sending` key reaches the send endpoints alone; with `domain`, a verified domain of the account (422 `VALIDATION_ERROR` on `domain` otherwise), it may send only from that domain. `env: "test"` makes a test key, which never sends through SES nor uses quota. A test key may create only test keys (403 `FORBIDDEN`, `field: "env"`).',
    example: { name: 'Production server', permission: 'sending', env: 'live' },
  }),
  list: apiKey.list({
    query: listApiKeysQuery,
    name: 'keys',
    item: apiKeySchema,
    table: ['Query'],
    summary: 'List API keys',
    description:
      "The account's keys that are not revoked, newest first, without secrets: `hint` is the secret's last 4 characters, and `lastUsedAt` the time of the key's last authenticated request.",
  }),
  update: apiKey.update({
    body: updateApiKeyBody,
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    summary: 'Rename, disable or enable an API key',
    description:
      'A disabled key is refused (403 `FORBIDDEN`) from its next request, in every region, until `disabled: false` enables it again. A test key may change only test keys (403 `FORBIDDEN`).',
    example: { name: 'Old server', disabled: true },
  }),
  delete: apiKey.delete({
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    summary: 'Revoke an API key',
    description:
      'The key is refused (401 `UNAUTHORIZED`) from its next request, in every region, and no longer listed; this cannot be undone. A key may revoke itself (after rotating to a new one); a test key may revoke only test keys (403 `FORBIDDEN`).',
  }),
});
