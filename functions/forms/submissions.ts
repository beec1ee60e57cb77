import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listSubmissions } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.submissions, async ({ principal, params, query }) => ok(await listSubmissions(principal.accountId, params.id!, query)));
