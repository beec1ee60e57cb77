import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { renderTemplateBody } from '#shared/schemas/templates.ts';
import { previewTemplate } from '#shared/domain/templates.ts';

export const handler = endpoint('templates/render', { body: renderTemplateBody }, async ({ principal, params, body, now }) =>
  ok({ ...(await previewTemplate(principal.accountId, params.id!, body.variables, now)) }));
