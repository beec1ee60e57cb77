import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listForms } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.list, async ({ principal, query }) => ok(await listForms(principal.accountId, query)));
