import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listAudiences } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.list, async ({ principal, query }) => ok(await listAudiences(principal.accountId, query.page, query.limit)));
