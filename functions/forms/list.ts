import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listForms } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.list, async ({ principal, query }) => ok(await listForms(principal.accountId, query)));
