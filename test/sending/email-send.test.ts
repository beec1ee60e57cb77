import { describe, expect, it } from 'vitest';
import { email } from '#functions/email/contract.ts';
import { resolveAttachments } from '#shared/attachments/service.ts';
import { request } from '../support/api.ts';
import { addContact, createSender, expectSent, sendPlain, storedEmails, suppressedFailure, uniqueAddress, uniqueAddresses } from './support.ts';
import { createTemplate } from '../support/arrange.ts';

describe('POST /api/email/send', () => {
  it('sends each recipient a message of its own, with cc, bcc, reply-to, both bodies and the attachments', async () => {
    const sender = await createSender();
    const [ann, bob, cc, bcc] = [uniqueAddress('ann'), uniqueAddress('bob'), uniqueAddress('cc'), uniqueAddress('bcc')];
    const pdf = Buffer.from('%PDF-1.4 pretend').toString('base64');

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: {
        from: `Acme News <${sender.from}>`,
        recipients: [ann, bob],
        subject: 'Hello {{name}}',
        content: '<h1>Hi {{name}}</h1><p>Your <b>report</b> is attached.</p>',
        variables: { name: 'Ann & <Co>' },
        cc: [cc],
        bcc: [bcc],
        replyTo: 'Support <help@acme.example>',
        attachments: [
          { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
          { filename: 'notes.txt', content: Buffer.from('hi').toString('base64') },
        ],
      },
    });

    expectSent(response, { message: 'Email sent to 2 recipients', sent: [ann, bob], emailsRemaining: 1_000_000 - 2 });
    expect(response.body.successfulEmails[0].trackingId).not.toBe(response.body.successfulEmails[1].trackingId);
    const stored = await storedEmails(sender.domain);
    expect(stored).toHaveLength(2);
    expect(stored.map((email) => email.destination)).toEqual([
      { to: [ann], cc: [cc], bcc: [bcc] },
      { to: [bob], cc: [cc], bcc: [bcc] },
    ]);
    const [first] = stored;
    expect(first).toMatchObject({
      from: `Acme News <${sender.from}>`,
      replyTo: ['Support <help@acme.example>'],
      subject: 'Hello Ann & <Co>',
      body: { html: '<h1>Hi Ann &amp; &lt;Co&gt;</h1><p>Your <b>report</b> is attached.</p>', text: 'Hi Ann & <Co>\n\nYour report is attached.' },
      attachments: [
        { filename: 'report.pdf', contentType: 'application/pdf', content: pdf, size: 16 },
        { filename: 'notes.txt', contentType: 'application/octet-stream', content: Buffer.from('hi').toString('base64'), size: 2 },
      ],
    });
    expect(first!.headers ?? []).toEqual([]);
  });

  it("adds List-Unsubscribe and List-Unsubscribe-Post (RFC 8058) with each recipient's own link when the content uses {{unsubscribeUrl}}", async () => {
    const sender = await createSender();
    const [ann, bob] = [uniqueAddress('ann'), uniqueAddress('bob')];

    await request('POST', '/api/email/send', {
      key: sender.key,
      body: {
        from: sender.from,
        recipients: [ann, bob],
        subject: 'News',
        content: '<p>News. <a href="{{unsubscribeUrl}}">Unsubscribe</a> · <a href="{{preferencesUrl}}">Preferences</a></p>',
      },
    });

    const stored = await storedEmails(sender.domain);
    const links = stored.map((email) => {
      const unsubscribe = /href="([^"]*\/unsubscribe\/[^"]+)"/.exec(email.body.html!)![1]!;
      expect(email.body.html).toMatch(/href="[^"]*\/preferences\/[^"]+"/);
      expect(email.headers).toEqual([
        { name: 'List-Unsubscribe', value: `<${unsubscribe}>` },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
      ]);
      return unsubscribe;
    });
    expect(new Set(links).size).toBe(2);
    // The one-click POST of Ann's link unsubscribes her, and nobody else.
    expect(
      (await fetch(links[0]!, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status,
    ).toBe(200);
  });

  it('sends 50 recipients 50 separate messages, each with its own tracking id', async () => {
    const sender = await createSender();
    const recipients = Array.from({ length: 50 }, (_, index) => uniqueAddress(`r${index}`));

    const response = await sendPlain(sender, recipients);

    expect(response.status).toBe(200);
    expect(response.body.recipientCount).toBe(50);
    expect(response.body.successfulEmails.map((item: { recipient: string }) => item.recipient)).toEqual(recipients);
    expect(new Set(response.body.successfulEmails.map((item: { trackingId: string }) => item.trackingId)).size).toBe(50);
    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination.to).sort()).toEqual(recipients.map((recipient) => [recipient]).sort());
  });

  it('sends a repeated address once, and normalises addresses', async () => {
    const sender = await createSender();
    const ann = uniqueAddress('ann');

    const response = await sendPlain(sender, [ann, ` ${ann.toUpperCase()} `]);

    expect(response.body).toMatchObject({ recipientCount: 1, successfulEmails: [{ recipient: ann }] });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it("renders a stored template, with the request subject overriding the template's", async () => {
    const sender = await createSender();
    const template = await createTemplate(sender.key, {
      name: 'Welcome',
      subject: 'Welcome {{name}}',
      components: [
        { type: 'heading', content: 'Hello {{name}}' },
        { type: 'text', content: 'Unsubscribe: {{unsubscribeUrl}}' },
      ],
    });
    const [ann, bob] = [uniqueAddress('ann'), uniqueAddress('bob')];

    const withTemplateSubject = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann], templateId: template.id, variables: { name: 'Ann' } },
    });
    const withOwnSubject = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [bob], templateId: template.id, subject: 'For {{name}} only', variables: { name: 'Bob' } },
    });

    expect([withTemplateSubject.status, withOwnSubject.status]).toEqual([200, 200]);
    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.subject)).toEqual(['Welcome Ann', 'For Bob only']);
    expect(stored[0]!.body.html).toContain('Hello Ann');
    expect(stored[0]!.body.text).toContain('Hello Ann');
    expect(stored[0]!.headers?.map((header) => header.name)).toEqual(['List-Unsubscribe', 'List-Unsubscribe-Post']);
  });

  it('does not send to contacts that unsubscribed, bounced or complained, in any audience', async () => {
    const sender = await createSender();
    const [ok, unsubscribed, bounced, complained, pending] = uniqueAddresses('ok', 'unsub', 'bounced', 'complained', 'pending');
    await addContact(sender.key, unsubscribed, 'unsubscribed');
    await addContact(sender.key, bounced, 'bounced');
    await addContact(sender.key, complained, 'complained');
    await addContact(sender.key, pending, 'pending');

    const response = await sendPlain(sender, [ok, unsubscribed.toUpperCase(), bounced, complained, pending]);

    expectSent(response, {
      message: 'Email sent to 2 of 5 recipients',
      sent: [ok, pending],
      failed: [unsubscribed, bounced, complained].map(suppressedFailure),
      emailsRemaining: 1_000_000 - 2,
    });
    expect((await storedEmails(sender.domain)).map((email) => email.destination.to[0])).toEqual([ok, pending]);
  });

  it('answers ALL_RECIPIENTS_FAILED (422) with the whole result when nobody could be sent to', async () => {
    const sender = await createSender();
    const gone = uniqueAddress('gone');
    await addContact(sender.key, gone, 'bounced');

    const response = await sendPlain(sender, [gone]);

    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: 'ALL_RECIPIENTS_FAILED',
      message: 'The email was not sent to any of the 1 recipient',
      successfulEmails: [],
      failedEmails: [{ recipient: gone, error: 'RECIPIENT_SUPPRESSED', message: expect.any(String) }],
      recipientCount: 1,
      emailsRemaining: 1_000_000,
    });
  });

  it('refuses a sender whose domain is not a verified domain of the account', async () => {
    const sender = await createSender();
    const other = await createSender();

    const responses = await Promise.all(
      [`news@unverified-${sender.domain}`, other.from, `Acme <news@sub.${sender.domain}>`].map((from) =>
        request('POST', '/api/email/send', { key: sender.key, body: { from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' } }),
      ),
    );

    for (const response of responses) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ success: false, error: 'SENDER_NOT_VERIFIED', message: expect.any(String), field: 'from' });
    }
    expect(await storedEmails(other.domain)).toEqual([]);
  });

  it('answers each bad input with its code and field', async () => {
    const sender = await createSender();
    const base = { from: sender.from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' };
    const many = (count: number) => Array.from({ length: count }, (_, index) => `r${index}@example.org`);
    const file = { filename: 'a.txt', content: 'aGk=' };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...base, from: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'from'],
      [{ ...base, recipients: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'recipients'],
      [{ ...base, recipients: [] }, 400, 'MISSING_REQUIRED_FIELD', 'recipients'],
      [{ ...base, subject: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'subject'],
      [{ ...base, content: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'content'],
      [{ ...base, templateId: 'tpl_x' }, 422, 'VALIDATION_ERROR', 'templateId'],
      [{ ...base, from: 'not an address' }, 422, 'INVALID_EMAIL', 'from'],
      [{ ...base, from: 'Acme <news@>' }, 422, 'INVALID_EMAIL', 'from'],
      [{ ...base, recipients: ['ok@example.org', 'broken'] }, 422, 'INVALID_EMAIL', 'recipients[1]'],
      [{ ...base, cc: ['ok@example.org', 'x@'] }, 422, 'INVALID_EMAIL', 'cc[1]'],
      [{ ...base, bcc: ['nope'] }, 422, 'INVALID_EMAIL', 'bcc[0]'],
      [{ ...base, replyTo: 'nope' }, 422, 'INVALID_EMAIL', 'replyTo'],
      [{ ...base, recipients: many(51) }, 422, 'VALIDATION_ERROR', 'recipients'],
      [{ ...base, cc: many(51) }, 422, 'VALIDATION_ERROR', 'cc'],
      [{ ...base, cc: many(30), bcc: many(20) }, 422, 'VALIDATION_ERROR', 'bcc'],
      [{ ...base, attachments: Array.from({ length: 11 }, () => file) }, 422, 'VALIDATION_ERROR', 'attachments'],
      [{ ...base, attachments: [file, { ...file, content: 'not base64!' }] }, 422, 'VALIDATION_ERROR', 'attachments[1].content'],
      [{ ...base, attachments: [{ ...file, content: 'aGk' }] }, 422, 'VALIDATION_ERROR', 'attachments[0].content'],
      [{ ...base, attachments: [{ content: 'aGk=' }] }, 400, 'MISSING_REQUIRED_FIELD', 'attachments[0].filename'],
      [{ ...base, attachments: [{ ...file, contentType: 'pdf' }] }, 422, 'VALIDATION_ERROR', 'attachments[0].contentType'],
      [{ ...base, attachments: [{ ...file, filename: '../etc/passwd' }] }, 422, 'VALIDATION_ERROR', 'attachments[0].filename'],
      [{ ...base, variables: ['a'] }, 422, 'VALIDATION_ERROR', 'variables'],
      [{ ...base, content: '{{#each x}}{{/each}}' }, 422, 'VALIDATION_ERROR', 'content'],
      [{ ...base, tags: ['x'] }, 422, 'VALIDATION_ERROR', 'tags'],
      // Header injection: a line break anywhere in a header-bound field.
      [{ ...base, subject: 'Hi\r\nBcc: victim@example.org' }, 422, 'VALIDATION_ERROR', 'subject'],
      [{ ...base, from: `Acme\n <${sender.from}>` }, 422, 'VALIDATION_ERROR', 'from'],
      [{ ...base, from: `${sender.from}\r\n` }, 422, 'VALIDATION_ERROR', 'from'],
      [{ ...base, replyTo: 'help@acme.example\nBcc: victim@example.org' }, 422, 'VALIDATION_ERROR', 'replyTo'],
      [{ ...base, attachments: [{ ...file, filename: 'a.txt\r\nX-Evil: 1' }] }, 422, 'VALIDATION_ERROR', 'attachments[0].filename'],
      [{ ...base, attachments: [{ ...file, contentType: 'text/plain\r\nX-Evil: 1' }] }, 422, 'VALIDATION_ERROR', 'attachments[0].contentType'],
    ];

    for (const [body, status, error, field] of cases) {
      const response = await request('POST', '/api/email/send', { key: sender.key, body });
      expect({ body, status: response.status, error: response.body.error, field: response.body.field }).toEqual({ body, status, error, field });
    }
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('answers TEMPLATE_NOT_FOUND for an unknown template, also one of another account', async () => {
    const sender = await createSender();
    const other = await createSender();
    const foreign = await request('POST', '/api/templates', {
      key: other.key,
      body: { name: 'T', subject: 'S', components: [{ type: 'text', content: 'x' }] },
    });

    for (const templateId of ['tpl_unknown', foreign.body.data.id]) {
      const response = await request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients: [uniqueAddress()], templateId } });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ error: 'TEMPLATE_NOT_FOUND', field: 'templateId' });
    }
  });

  it('takes attachments up to what fits in a Lambda request, and answers 413 beyond', async () => {
    const sender = await createSender();
    const threeMegabytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const base = { from: sender.from, recipients: [uniqueAddress()], subject: 'Big', content: '<p>Big</p>' };
    const tooBig = Buffer.alloc(Math.ceil((email.send.maxBodyBytes * 3) / 4), 1).toString('base64');

    const fits = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { ...base, attachments: [{ filename: 'big.bin', content: threeMegabytes.toString('base64') }] },
    });
    const refused = await request('POST', '/api/email/send', { key: sender.key, body: { ...base, attachments: [{ filename: 'huge.bin', content: tooBig }] } });

    expect(fits.status).toBe(200);
    expect((await storedEmails(sender.domain))[0]!.attachments[0]).toMatchObject({ filename: 'big.bin', size: threeMegabytes.length });
    expect(refused.status).toBe(413);
    expect(refused.body.error).toBe('PAYLOAD_TOO_LARGE');
  });

  it("refuses an inline attachment over 7 MB decoded with ATTACHMENT_TOO_LARGE naming it (behind a larger body limit than Lambda's)", async () => {
    const sevenMegabytes = 7 * 1024 * 1024;
    const atLimit = Buffer.alloc(sevenMegabytes).toString('base64');
    const overLimit = Buffer.alloc(sevenMegabytes + 1).toString('base64');
    const now = new Date();

    expect((await resolveAttachments('acc_none', [{ filename: 'a', content: atLimit, contentType: 'application/octet-stream' }], now))[0]!.content.length).toBe(
      sevenMegabytes,
    );
    await expect(
      resolveAttachments(
        'acc_none',
        [
          { filename: 'a', content: atLimit, contentType: 'application/octet-stream' },
          { filename: 'b', content: overLimit, contentType: 'application/octet-stream' },
        ],
        now,
      ),
    ).rejects.toMatchObject({ code: 'ATTACHMENT_TOO_LARGE', details: { field: 'attachments[1]' } });
  });

  it('accepts base64 wrapped at 76 characters, as MIME tools write it', async () => {
    const sender = await createSender();
    const data = Buffer.alloc(200, 65).toString('base64');
    const wrapped = data.replace(/(.{76})/g, '$1\r\n');

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: {
        from: sender.from,
        recipients: [uniqueAddress()],
        subject: 'W',
        content: '<p>W</p>',
        attachments: [{ filename: 'w.txt', content: wrapped, contentType: 'text/plain' }],
      },
    });

    expect(response.status).toBe(200);
    expect((await storedEmails(sender.domain))[0]!.attachments[0]).toMatchObject({ content: data, size: 200 });
  });
});

describe('send permissions', () => {
  it('lets a sending key send, and keeps it away from everything else, email records included', async () => {
    const sender = await createSender({ permission: 'sending' });
    const to = uniqueAddress();

    const sent = await sendPlain(sender, [to]);
    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to, code: '123456' } });
    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to, subject: 'R', content: '<p>R</p>' },
    });
    const read = await request('GET', `/api/emails/${otp.body.emailId}`, { key: sender.key });

    expect([sent.status, otp.status, transactional.status]).toEqual([200, 200, 200]);
    expect(read.status).toBe(403);
    expect(read.body.error).toBe('FORBIDDEN');
  });
});
