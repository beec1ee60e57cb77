import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getEmail } from '#shared/messages/service.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.get, async ({ principal, params }) => ok({ data: await getEmail(principal.accountId, params.id!) }));
