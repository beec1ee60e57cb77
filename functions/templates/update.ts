import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateTemplate } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateTemplate(principal.accountId, params.id!, body, now) }),
);
