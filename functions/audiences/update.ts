import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateAudienceBody } from '#shared/schemas/audiences.ts';
import { updateAudience } from '#shared/domain/audiences.ts';

export const handler = endpoint('audiences/update', { body: updateAudienceBody }, async ({ principal, params, body, now }) =>
  ok({ data: await updateAudience(principal.accountId, params.id!, body, now) }));
