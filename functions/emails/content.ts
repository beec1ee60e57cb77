import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getEmailContentOf } from '#shared/messages/service.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.content, async ({ principal, params }) => ok({ data: await getEmailContentOf(principal.accountId, params.id!) }));
