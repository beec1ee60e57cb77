import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listTemplates } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.list, async ({ principal, query }) => ok({ ...(await listTemplates(principal.accountId, query)) }));
