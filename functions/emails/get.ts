import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getEmail } from '#shared/domain/emails.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.get, async ({ principal, params }) => ok({ data: await getEmail(principal.accountId, params.id!) }));
