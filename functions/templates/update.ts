import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateTemplateBody } from '#shared/schemas/templates.ts';
import { updateTemplate } from '#shared/domain/templates.ts';

export const handler = endpoint('templates/update', { body: updateTemplateBody }, async ({ principal, params, body, now }) =>
  ok({ data: await updateTemplate(principal.accountId, params.id!, body, now) }));
