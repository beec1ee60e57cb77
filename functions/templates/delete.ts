import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteTemplate } from '#shared/domain/templates.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.delete, async ({ principal, params }) => {
  await deleteTemplate(principal.accountId, params.id!);
  return deleted('Template deleted');
});
