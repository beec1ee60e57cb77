import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { updateForm } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.update, async ({ principal, params, body, now }) => ok({ data: await updateForm(principal, params.id!, body, now) }));
