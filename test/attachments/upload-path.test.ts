import { describe, expect, it } from 'vitest';
import { createAttachment } from '#shared/attachments/service.ts';
import { sendConcurrency } from '#shared/attachments/budget.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { createSender, storedEmails, uniqueAddress, type Sender } from '../sending/support.ts';

const SEVEN_MEGABYTES = 7 * 1024 * 1024;

async function startUpload(key: string, body: Record<string, unknown>) {
  const response = await request('POST', '/api/attachments', { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; uploadUrl: string; method: string; headers: Record<string, string>; expiresAt: string; uploadExpiresAt: string };
}

async function put(upload: { uploadUrl: string; headers: Record<string, string> }, bytes: Uint8Array, headers = upload.headers) {
  return fetch(upload.uploadUrl, { method: 'PUT', headers, body: bytes });
}

/** Creates, uploads and returns the id: the whole client side of the upload path. */
async function uploaded(key: string, bytes: Uint8Array, declared: Record<string, unknown> = {}): Promise<string> {
  const upload = await startUpload(key, { filename: 'file.bin', contentType: 'application/octet-stream', size: bytes.length, ...declared });
  expect((await put(upload, bytes)).status).toBe(200);
  return upload.id;
}

function send(sender: Sender, attachments: unknown[], key = sender.key) {
  return request('POST', '/api/email/send', {
    key,
    body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Files', content: '<p>Files</p>', attachments },
  });
}

describe('POST /api/attachments and sending by id', () => {
  it('hands a sending key a pre-signed PUT, and a send by id carries the file like an inline one', async () => {
    const sender = await createSender({ permission: 'sending' });
    const pdf = Buffer.from('%PDF-1.4 uploaded, not inline');
    const before = Date.now();

    const response = await request('POST', '/api/attachments', {
      key: sender.key,
      body: { filename: 'report.pdf', contentType: 'application/pdf', size: pdf.length },
    });

    expect(response.status).toBe(201);
    const upload = response.body.data;
    expect(upload).toEqual({
      id: expect.stringMatching(/^att_[0-9A-Za-z]{20}$/),
      filename: 'report.pdf',
      contentType: 'application/pdf',
      size: pdf.length,
      uploadUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/postlane-attachments\/acc_[0-9A-Za-z]+\/att_[0-9A-Za-z]+\?.*X-Amz-Signature=/),
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf' },
      uploadExpiresAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(new URL(upload.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(Date.parse(upload.uploadExpiresAt) - before).toBeGreaterThanOrEqual(3_600_000 - 1_000);
    expect(Date.parse(upload.expiresAt) - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1_000);

    expect((await put(upload, pdf)).status).toBe(200);
    const inline = Buffer.from('inline beside it');
    const sent = await send(sender, [{ id: upload.id }, { filename: 'note.txt', content: inline.toString('base64'), contentType: 'text/plain' }]);

    expect(sent.status).toBe(200);
    expect(sent.body.successfulEmails).toHaveLength(1);
    const [email] = await storedEmails(sender.domain);
    expect(email!.attachments).toMatchObject([
      { filename: 'report.pdf', contentType: 'application/pdf', content: pdf.toString('base64'), size: pdf.length },
      { filename: 'note.txt', contentType: 'text/plain', content: inline.toString('base64'), size: inline.length },
    ]);
  });

  it('carries a 7 MB file, which cannot fit a Lambda request inline, through the upload', async () => {
    const sender = await createSender();
    const file = Buffer.alloc(SEVEN_MEGABYTES);
    for (let index = 0; index < file.length; index += 4096) file[index] = index % 251;

    const id = await uploaded(sender.key, file, { filename: 'big.bin' });
    const sent = await send(sender, [{ id }]);

    expect(sent.status).toBe(200);
    const [attachment] = (await storedEmails(sender.domain))[0]!.attachments;
    expect(attachment!.size).toBe(SEVEN_MEGABYTES);
    expect(Buffer.from(attachment!.content, 'base64').equals(file)).toBe(true);
  });

  it('lets one upload go out in several sends while it lives', async () => {
    const sender = await createSender();
    const id = await uploaded(sender.key, Buffer.from('twice'));

    expect((await send(sender, [{ id }])).status).toBe(200);
    expect((await send(sender, [{ id }])).status).toBe(200);
    expect((await storedEmails(sender.domain)).map((email) => email.attachments.length)).toEqual([1, 1]);
  });

  it("answers an unknown, malformed, expired or other account's id alike: 404 ATTACHMENT_NOT_FOUND naming the item", async () => {
    const sender = await createSender();
    const other = await createSender();
    const othersId = await uploaded(other.key, Buffer.from('not yours'));
    const expired = await createAttachment(
      sender.accountId,
      { filename: 'old.txt', contentType: 'text/plain', size: 3 },
      new Date(Date.now() - 25 * 3_600_000),
    );
    expect((await put(expired, Buffer.from('old'))).status).toBe(200);
    const ownId = await uploaded(sender.key, Buffer.from('mine'));

    for (const id of [othersId, 'att_00000000000000000000', 'nope', expired.id]) {
      const response = await send(sender, [{ id: ownId }, { id }]);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ success: false, error: 'ATTACHMENT_NOT_FOUND', message: 'Attachment not found', field: 'attachments[1].id' });
    }
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('answers an id whose file was never uploaded with 409 ATTACHMENT_NOT_UPLOADED, and sends nothing', async () => {
    const sender = await createSender();
    const upload = await startUpload(sender.key, { filename: 'later.pdf', contentType: 'application/pdf', size: 100 });

    const response = await send(sender, [{ id: upload.id }]);

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ success: false, error: 'ATTACHMENT_NOT_UPLOADED', field: 'attachments[0].id' });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('refuses a file over 7 MB when declared (400 on size), and a declaration without a size: the URL always signs the length', async () => {
    const sender = await createSender();

    const declared = await request('POST', '/api/attachments', { key: sender.key, body: { filename: 'huge.bin', size: SEVEN_MEGABYTES + 1 } });
    const undeclared = await request('POST', '/api/attachments', { key: sender.key, body: { filename: 'huge.bin' } });

    expect(declared.status).toBe(400);
    expect(declared.body).toMatchObject({ error: 'ATTACHMENT_TOO_LARGE', field: 'size' });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body).toMatchObject({ success: false, error: 'MISSING_REQUIRED_FIELD', field: 'size' });
  });

  it('an upload URL takes exactly the declared length: a larger file (the 7 MB limit and more) is refused by S3, not only at send time', async () => {
    const sender = await createSender();
    const upload = await startUpload(sender.key, { filename: 'small.bin', size: 10 });

    const larger = await put(upload, Buffer.alloc(SEVEN_MEGABYTES + 1));
    const shorter = await put(upload, Buffer.alloc(9));

    expect(new URL(upload.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect([larger.status, shorter.status]).toEqual([403, 403]);
    expect((await send(sender, [{ id: upload.id }])).body.error).toBe('ATTACHMENT_NOT_UPLOADED');
  });

  it("refuses attachments that together pass SES's 40 MB message, before anything is sent", async () => {
    const sender = await createSender();
    const id = await uploaded(sender.key, Buffer.alloc(SEVEN_MEGABYTES, 1));

    const response = await send(
      sender,
      Array.from({ length: 5 }, () => ({ id })),
    );

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'ATTACHMENT_TOO_LARGE', field: 'attachments', message: expect.stringContaining('40 MB') });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('validates the declaration as inline attachments are validated', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ contentType: 'application/pdf', size: 1 }, 400, 'MISSING_REQUIRED_FIELD', 'filename'],
      [{ filename: 'a.pdf' }, 400, 'MISSING_REQUIRED_FIELD', 'size'],
      [{ filename: '../etc/passwd', size: 1 }, 422, 'VALIDATION_ERROR', 'filename'],
      [{ filename: 'a.txt\r\nX-Evil: 1', size: 1 }, 422, 'VALIDATION_ERROR', 'filename'],
      [{ filename: 'a.pdf', contentType: 'pdf', size: 1 }, 422, 'VALIDATION_ERROR', 'contentType'],
      [{ filename: 'a.pdf', contentType: 'text/plain\r\nX-Evil: 1', size: 1 }, 422, 'VALIDATION_ERROR', 'contentType'],
      [{ filename: 'a.pdf', size: 0 }, 422, 'VALIDATION_ERROR', 'size'],
      [{ filename: 'a.pdf', size: 1.5 }, 422, 'VALIDATION_ERROR', 'size'],
      [{ filename: 'a.pdf', size: 1, content: 'aGk=' }, 422, 'VALIDATION_ERROR', 'content'],
    ];
    for (const [body, status, error, field] of cases) {
      const response = await request('POST', '/api/attachments', { key, body });
      expect([response.status, response.body.error, response.body.field], JSON.stringify(body)).toEqual([status, error, field]);
    }
    expect((await request('POST', '/api/attachments', { body: { filename: 'a.pdf' } })).status).toBe(401);
  });

  it('takes an id alone in a send: anything beside it is an unknown field', async () => {
    const sender = await createSender();
    const id = await uploaded(sender.key, Buffer.from('x'));

    const response = await send(sender, [{ id, filename: 'renamed.bin' }]);

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'attachments[0].filename' });
  });

  it('binds the upload URL to the declared type and size: another Content-Type or length is refused', async () => {
    const sender = await createSender();
    const upload = await startUpload(sender.key, { filename: 'a.pdf', contentType: 'application/pdf', size: 5 });

    const wrongType = await put(upload, Buffer.from('hello'), { 'Content-Type': 'text/html' });
    const wrongLength = await put(upload, Buffer.from('hello, longer'));
    const afterRefusals = await send(sender, [{ id: upload.id }]);

    expect([wrongType.status, wrongLength.status]).toEqual([403, 403]);
    expect(afterRefusals.body.error).toBe('ATTACHMENT_NOT_UPLOADED');
    expect((await put(upload, Buffer.from('hello'))).status).toBe(200);
    expect((await send(sender, [{ id: upload.id }])).status).toBe(200);
  });

  it('goes through the same checks with a test key, without handing anything to SES', async () => {
    const sender = await createSender();
    const id = await uploaded(sender.testKey, Buffer.from('sandbox'));

    const sent = await send(sender, [{ id }], sender.testKey);
    const missing = await send(sender, [{ id: 'att_00000000000000000000' }], sender.testKey);

    expect(sent.status).toBe(200);
    expect(missing.status).toBe(404);
    expect(await storedEmails(sender.domain)).toEqual([]);
  });
});

describe('sendConcurrency', () => {
  const file = (megabytes: number) => ({ filename: 'f', contentType: 'application/octet-stream', content: new Uint8Array(megabytes * 1024 * 1024) });

  it('keeps fewer messages in flight as their attachments grow, so a 512 MB function holds them', () => {
    expect(sendConcurrency([], 10)).toBe(10);
    expect(sendConcurrency([file(7)], 10)).toBe(10);
    expect(sendConcurrency([file(7), file(7)], 10)).toBe(9);
    expect(sendConcurrency([file(7), file(7), file(7), file(7)], 10)).toBe(4);
    expect(sendConcurrency([file(200)], 10)).toBe(1);
  });
});
