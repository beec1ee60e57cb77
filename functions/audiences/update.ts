import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateAudience } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateAudience(principal.accountId, params.id!, body, now) }),
);
