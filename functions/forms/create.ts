import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createForm } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.create, async ({ principal, body, now }) => created(await createForm(principal, body, now)));
