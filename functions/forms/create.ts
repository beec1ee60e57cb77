import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createForm } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.create, async ({ principal, body, now }) => created(await createForm(principal, body, now)));
