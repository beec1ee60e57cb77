import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createTemplateBody } from '#shared/schemas/templates.ts';
import { createTemplate } from '#shared/domain/templates.ts';

export const handler = endpoint('templates/create', { body: createTemplateBody }, async ({ principal, body, now }) =>
  created(await createTemplate(principal.accountId, body, now)));
