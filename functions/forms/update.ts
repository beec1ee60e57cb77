import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateForm } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.update, async ({ principal, params, body, now }) => ok({ data: await updateForm(principal, params.id!, body, now) }));
