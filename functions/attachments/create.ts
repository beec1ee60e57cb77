import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createAttachmentBody } from '#shared/schemas/attachments.ts';
import { createAttachment } from '#shared/domain/attachments.ts';

export const handler = endpoint('attachments/create', { body: createAttachmentBody }, async ({ principal, body, now }) =>
  created(await createAttachment(principal.accountId, body, now)));
