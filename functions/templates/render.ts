import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { previewTemplate } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.render, async ({ principal, params, body, now }) =>
  ok({ ...(await previewTemplate(principal.accountId, params.id!, body.variables, now)) }),
);
