import { defineArea } from '#shared/platform/http/contract.ts';
import { attachmentUploadSchema, createAttachmentBody } from '#shared/attachments/schema.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';

export const attachments = defineArea('attachments', {
  create: {
    // Uploading is part of sending: `sending` keys may, as they may attach files inline.
    method: 'POST',
    path: '/api/attachments',
    auth: 'key',
    permission: 'sending',
    table: ['PutItem'],
    attachments: ['upload'],
    request: { body: createAttachmentBody },
    responses: { 201: dataReply(attachmentUploadSchema) },
    errors: ['ATTACHMENT_TOO_LARGE'],
    summary: 'Start an attachment upload (files up to 7 MB)',
    description:
      'Answers a pre-signed URL: PUT the file there with exactly `headers`, then reference it in POST /api/email/send as `{"id": "att_…"}` within 24 hours.',
    example: { filename: 'report.pdf', contentType: 'application/pdf', size: 7340032 },
  },
});
