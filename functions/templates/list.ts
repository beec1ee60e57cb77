import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listTemplatesQuery } from '#shared/schemas/template-list.ts';
import { listTemplates } from '#shared/domain/templates.ts';

export const handler = endpoint('templates/list', { query: listTemplatesQuery }, async ({ principal, query }) =>
  ok({ ...(await listTemplates(principal.accountId, query)) }));
