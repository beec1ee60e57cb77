import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { updateAudience } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateAudience(principal.accountId, params.id!, body, now) }),
);
