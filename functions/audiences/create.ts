import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createAudience } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.create, async ({ principal, body, now }) => created(await createAudience(principal.accountId, body, now)));
