import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getAudience } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.get, async ({ principal, params }) => ok({ data: await getAudience(principal.accountId, params.id!) }));
