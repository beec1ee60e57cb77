import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createAudience } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.create, async ({ principal, body, now }) => created(await createAudience(principal.accountId, body, now)));
