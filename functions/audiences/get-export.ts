import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { readExport } from '#shared/contacts/export.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.getExport, async ({ principal, params, now }) =>
  ok({ data: await readExport(principal.accountId, params.id!, params.exportId!, now) }),
);
