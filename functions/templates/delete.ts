import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteTemplate } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.delete, async ({ principal, params }) => {
  await deleteTemplate(principal.accountId, params.id!);
  return deleted('Template deleted');
});
