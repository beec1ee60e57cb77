import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateFormBody } from '#shared/schemas/forms.ts';
import { updateForm } from '#shared/domain/forms.ts';

export const handler = endpoint('forms/update', { body: updateFormBody }, async ({ principal, params, body, now }) =>
  ok({ data: await updateForm(principal.accountId, params.id!, body, now) }));
