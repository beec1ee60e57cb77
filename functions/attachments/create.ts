import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createAttachment } from '#shared/domain/attachments.ts';
import { attachments } from './contract.ts';

export const handler = endpoint(attachments.create, async ({ principal, body, now }) => created(await createAttachment(principal.accountId, body, now)));
