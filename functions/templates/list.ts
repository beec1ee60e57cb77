import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listTemplates } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.list, async ({ principal, query }) => ok({ ...(await listTemplates(principal.accountId, query)) }));
