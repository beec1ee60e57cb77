import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { addSuppressions } from '#shared/suppressions/service.ts';
import { suppressions } from './contract.ts';

export const handler = endpoint(suppressions.add, async ({ principal, body, now }) => created(await addSuppressions(principal, body.emails, now)));
