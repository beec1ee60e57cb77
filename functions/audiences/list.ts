import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listAudiencesQuery } from '#shared/schemas/audiences.ts';
import { listAudiences } from '#shared/domain/audiences.ts';

export const handler = endpoint('audiences/list', { query: listAudiencesQuery }, async ({ principal, query }) =>
  ok(await listAudiences(principal.accountId, query.page, query.limit)));
