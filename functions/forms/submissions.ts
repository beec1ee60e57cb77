import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listSubmissionsQuery } from '#shared/schemas/forms.ts';
import { listSubmissions } from '#shared/domain/forms.ts';

export const handler = endpoint('forms/submissions', { query: listSubmissionsQuery }, async ({ principal, params, query }) =>
  ok(await listSubmissions(principal.accountId, params.id!, query)));
