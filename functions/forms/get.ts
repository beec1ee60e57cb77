import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getForm } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.get, async ({ principal, params }) => ok({ data: await getForm(principal.accountId, params.id!) }));
