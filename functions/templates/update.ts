import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { updateTemplate } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateTemplate(principal.accountId, params.id!, body, now) }),
);
