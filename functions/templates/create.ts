import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createTemplate } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.create, async ({ principal, body, now }) => created(await createTemplate(principal.accountId, body, now)));
