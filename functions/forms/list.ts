import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listFormsQuery } from '#shared/schemas/forms.ts';
import { listForms } from '#shared/domain/forms.ts';

export const handler = endpoint('forms/list', { query: listFormsQuery }, async ({ principal, query }) =>
  ok(await listForms(principal.accountId, query)));
