import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createTemplate } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.create, async ({ principal, body, now }) => created(await createTemplate(principal.accountId, body, now)));
