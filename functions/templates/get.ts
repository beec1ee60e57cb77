import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getTemplate } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.get, async ({ principal, params }) => ok({ data: await getTemplate(principal.accountId, params.id!) }));
