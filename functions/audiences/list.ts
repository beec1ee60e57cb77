import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listAudiences } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.list, async ({ principal, query }) => ok(await listAudiences(principal.accountId, query.page, query.limit)));
