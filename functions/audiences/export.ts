import { endpoint } from '#shared/accounts/endpoint.ts';
import { accepted, created } from '#shared/platform/http/reply.ts';
import { requestExport } from '#shared/contacts/export.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.export, async ({ principal, params, now }) => {
  const exported = await requestExport(principal.accountId, params.id!, now);
  return exported.status === 'ready' ? created(exported) : accepted(exported);
});
