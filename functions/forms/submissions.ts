import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listSubmissions } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.submissions, async ({ principal, params, query }) => ok(await listSubmissions(principal.accountId, params.id!, query)));
