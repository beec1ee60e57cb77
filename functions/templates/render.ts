import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { previewTemplate } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.render, async ({ principal, params, body, now }) =>
  ok({ ...(await previewTemplate(principal.accountId, params.id!, body.variables, now)) }),
);
