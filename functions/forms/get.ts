import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getForm } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.get, async ({ principal, params }) => ok({ data: await getForm(principal.accountId, params.id!) }));
