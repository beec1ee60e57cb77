import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getTemplate } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.get, async ({ principal, params }) => ok({ data: await getTemplate(principal.accountId, params.id!) }));
