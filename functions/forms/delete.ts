import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteForm } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.delete, async ({ principal, params }) => {
  await deleteForm(principal.accountId, params.id!);
  return deleted('Form deleted with its submissions');
});
