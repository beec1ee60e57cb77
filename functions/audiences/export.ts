import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { exportAudience } from '#shared/contacts/export.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.export, async ({ principal, params, now }) => created(await exportAudience(principal.accountId, params.id!, now)));
