import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteForm } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = endpoint(forms.delete, async ({ principal, params }) => {
  await deleteForm(principal.accountId, params.id!);
  return deleted('Form deleted with its submissions');
});
