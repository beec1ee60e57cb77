import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createFormBody } from '#shared/schemas/forms.ts';
import { createForm } from '#shared/domain/forms.ts';

export const handler = endpoint('forms/create', { body: createFormBody }, async ({ principal, body, now }) =>
  created(await createForm(principal.accountId, body, now)));
