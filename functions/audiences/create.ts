import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createAudienceBody } from '#shared/schemas/audiences.ts';
import { createAudience } from '#shared/domain/audiences.ts';

export const handler = endpoint('audiences/create', { body: createAudienceBody }, async ({ principal, body, now }) =>
  created(await createAudience(principal.accountId, body, now)));
