import { type SendEmailCommand, type SESv2Client, TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { describe, expect, it } from 'vitest';
import { formatMailbox, parseMailbox } from '#shared/sending/address.ts';
import { outcomeOfSesError, sendEmailInput, sesTransport, type OutgoingEmail } from '#shared/sending/transport.ts';

const email: OutgoingEmail = {
  from: { name: 'Acme', address: 'news@acme.example' },
  to: ['ann@example.org'],
  cc: ['cc@example.org'],
  bcc: ['bcc@example.org'],
  replyTo: [{ address: 'help@acme.example' }],
  subject: 'Olá',
  html: '<p>Hi</p>',
  text: 'Hi',
  attachments: [{ filename: 'a.txt', content: Buffer.from('hello'), contentType: 'text/plain' }],
  unsubscribeUrl: 'https://api.example/unsubscribe/t.k',
};

describe('mailboxes', () => {
  it('parse a bare address, a named one and a quoted name, lower-casing the address', () => {
    expect(parseMailbox(' Ann@Example.COM ')).toEqual({ address: 'ann@example.com' });
    expect(parseMailbox('Ann Lee <Ann@Example.com>')).toEqual({ name: 'Ann Lee', address: 'ann@example.com' });
    expect(parseMailbox('"Acme, Inc." <news@acme.example>')).toEqual({ name: 'Acme, Inc.', address: 'news@acme.example' });
    expect(parseMailbox('<ann@example.com>')).toEqual({ address: 'ann@example.com' });
  });

  it('refuse what is not an address', () => {
    expect(['Ann', 'Ann <ann>', 'Ann <ann@example.com', '@example.com', 'Ann <a@b.example> <d@e.example>'].map(parseMailbox)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('format names as SES takes them: plain, quoted with specials, RFC 2047 outside ASCII', () => {
    expect(formatMailbox({ address: 'a@b.example' })).toBe('a@b.example');
    expect(formatMailbox({ name: 'Acme News', address: 'a@b.example' })).toBe('Acme News <a@b.example>');
    expect(formatMailbox({ name: 'Acme, "Inc."', address: 'a@b.example' })).toBe('"Acme, \\"Inc.\\"" <a@b.example>');
    expect(formatMailbox({ name: 'Café Ünïcode', address: 'a@b.example' })).toBe(`=?UTF-8?B?${Buffer.from('Café Ünïcode').toString('base64')}?= <a@b.example>`);
  });
});

describe('the SendEmail request', () => {
  it('is Simple content with both bodies, the RFC 8058 headers, attachments and every destination', () => {
    expect(sendEmailInput(email)).toEqual({
      FromEmailAddress: 'Acme <news@acme.example>',
      Destination: { ToAddresses: ['ann@example.org'], CcAddresses: ['cc@example.org'], BccAddresses: ['bcc@example.org'] },
      ReplyToAddresses: ['help@acme.example'],
      Content: {
        Simple: {
          Subject: { Data: 'Olá', Charset: 'UTF-8' },
          Body: { Html: { Data: '<p>Hi</p>', Charset: 'UTF-8' }, Text: { Data: 'Hi', Charset: 'UTF-8' } },
          Headers: [
            { Name: 'List-Unsubscribe', Value: '<https://api.example/unsubscribe/t.k>' },
            { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
          ],
          Attachments: [
            {
              FileName: 'a.txt',
              RawContent: Buffer.from('hello'),
              ContentType: 'text/plain',
              ContentDisposition: 'ATTACHMENT',
              ContentTransferEncoding: 'BASE64',
            },
          ],
        },
      },
    });
  });

  it('has no unsubscribe headers, cc, bcc, reply-to or attachments when the message has none', () => {
    const input = sendEmailInput({ ...email, cc: [], bcc: [], replyTo: [], attachments: [], unsubscribeUrl: undefined });

    expect(input.Destination).toEqual({ ToAddresses: ['ann@example.org'] });
    expect(input).not.toHaveProperty('ReplyToAddresses');
    expect(input.Content?.Simple).not.toHaveProperty('Headers');
    expect(input.Content?.Simple).not.toHaveProperty('Attachments');
  });

  it('refuses a line break in any header value, as the last guard against header injection', () => {
    expect(() => sendEmailInput({ ...email, subject: 'Hi\r\nBcc: victim@example.org' })).toThrow(/line break/);
    expect(() => sendEmailInput({ ...email, attachments: [{ ...email.attachments[0]!, filename: 'a\n.txt' }] })).toThrow(/line break/);
  });
});

describe('SES errors', () => {
  const error = (name: string, message = name) => Object.assign(new Error(message), { name });

  it('become per-recipient outcomes when SES refused the message, and stay errors otherwise', () => {
    const outcomes = [
      error('MessageRejected', 'Email address is not verified.'),
      error('MailFromDomainNotVerifiedException'),
      error('BadRequestException', 'Illegal address'),
      error('TooManyRequestsException'),
      error('LimitExceededException'),
      error('Throttling', 'Maximum sending rate exceeded.'),
      error('AccountSuspendedException'),
      error('SendingPausedException'),
    ].map((failure) => outcomeOfSesError(failure));

    expect(outcomes.map((outcome) => outcome?.status === 'failed' && outcome.error)).toEqual([
      'MESSAGE_REJECTED',
      'SENDER_NOT_VERIFIED',
      'INVALID_EMAIL',
      'SES_THROTTLED',
      'SES_THROTTLED',
      'SES_THROTTLED',
      'SENDING_PAUSED',
      'SENDING_PAUSED',
    ]);
    expect(outcomeOfSesError(error('BadRequestException', 'Invalid header'))).toBeUndefined();
    expect(outcomeOfSesError(error('InternalServiceErrorException'))).toBeUndefined();
  });

  it('reach the caller through the transport: an outcome for throttling, a throw for the unknown', async () => {
    const throttled = sesTransport({
      send: async () => {
        throw new TooManyRequestsException({ message: 'Too many', $metadata: {} });
      },
    } as unknown as SESv2Client);
    const broken = sesTransport({
      send: async () => {
        throw new Error('socket hang up');
      },
    } as unknown as SESv2Client);
    const sent: unknown[] = [];
    const working = sesTransport({
      send: async (command: SendEmailCommand) => {
        sent.push(command.input);
        return { MessageId: 'm-1' };
      },
    } as unknown as SESv2Client);

    await expect(throttled.send(email)).resolves.toMatchObject({ status: 'failed', error: 'SES_THROTTLED' });
    await expect(broken.send(email)).rejects.toThrow('socket hang up');
    await expect(working.send(email)).resolves.toEqual({ status: 'sent', messageId: 'm-1' });
    expect(sent).toEqual([sendEmailInput(email)]);
  });
});
