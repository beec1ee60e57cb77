import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getAudience } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.get, async ({ principal, params }) => ok({ data: await getAudience(principal.accountId, params.id!) }));
