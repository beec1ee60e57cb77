import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createAttachment } from '#shared/attachments/service.ts';
import { attachments } from './contract.ts';

export const handler = endpoint(attachments.create, async ({ principal, body, now }) => created(await createAttachment(principal.accountId, body, now)));
