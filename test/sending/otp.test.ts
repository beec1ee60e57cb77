import { describe, expect, it } from 'vitest';
import { admitOtp } from '#shared/sending/otp-limit.ts';
import type { Principal } from '#shared/accounts/api-keys.ts';
import { RECIPIENT_SUPPRESSED } from '#shared/sending/service.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from './support.ts';
import { createTemplate } from '../support/arrange.ts';

function otp(key: string, body: Record<string, unknown>, path = '/api/otp/send') {
  return request('POST', path, { key, body });
}

describe('POST /api/otp/send', () => {
  it('sends the default Portuguese template: title, app line, the code large and spaced, the expiry, the disclaimer', async () => {
    const sender = await createSender();
    const to = uniqueAddress();

    const response = await otp(sender.key, { from: sender.from, to, code: 'A1B2-C3', expiresInMinutes: 10 });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: 'OTP email sent',
      trackingId: expect.stringMatching(/^svc_\d{13}_[A-Za-z0-9]+$/),
      emailId: expect.stringMatching(/^eml_[A-Za-z0-9]{20}$/),
      queued: false,
    });
    const [email] = await storedEmails(sender.domain);
    expect(email!.destination.to).toEqual([to]);
    expect(email!.subject).toBe('Postlane - Seu código de verificação');
    const html = email!.body.html!;
    expect(html).toContain('<h1 style="margin:0;');
    expect(html).toContain('>Seu código de verificação</h1>');
    expect(html).toContain('Use o código abaixo para continuar no Postlane.');
    expect(html).toMatch(/font-size:36px;font-weight:bold;letter-spacing:10px;[^>]*>\s*<p style="margin:0;">A1B2-C3<\/p>/);
    expect(html).toContain('Este código expira em 10 minutos.');
    expect(html).toContain('Se você não solicitou este código, ignore este e-mail.');
    expect(html).toContain('role="presentation"');
    expect(html).not.toMatch(/<style|<script|<link/i);
    expect(email!.body.text).toBe(
      [
        'Seu código de verificação',
        'Use o código abaixo para continuar no Postlane.',
        'A1B2-C3',
        'Este código expira em 10 minutos.',
        'Se você não solicitou este código, ignore este e-mail. Nunca compartilhe este código com ninguém: nossa equipe nunca pedirá por ele.',
      ].join('\n\n'),
    );
    expect(email!.headers ?? []).toEqual([]);
  });

  it('leaves the expiry out without expiresInMinutes, names the app given, and renders a subject given', async () => {
    const sender = await createSender();

    await otp(sender.key, { from: sender.from, to: uniqueAddress(), code: '123456', appName: 'Acme <Bank>' });
    await otp(sender.key, { from: sender.from, to: uniqueAddress(), code: '654321', expiresInMinutes: 1, subject: 'Código {{code}} para {{appName}}' });

    const [first, second] = await storedEmails(sender.domain);
    expect(first!.subject).toBe('Acme <Bank> - Seu código de verificação');
    expect(first!.body.html).toContain('continuar no Acme &lt;Bank&gt;.');
    expect(first!.body.html).not.toContain('expira');
    expect(second!.subject).toBe('Código 654321 para Postlane');
    expect(second!.body.html).toContain('Este código expira em 1 minuto.');
  });

  it('renders a custom template with code, appName and expiresInMinutes', async () => {
    const sender = await createSender();
    const template = await createTemplate(sender.key, {
      name: 'OTP',
      subject: '{{appName}}: {{code}}',
      components: [{ type: 'text', content: 'Code {{code}} for {{appName}}, valid {{expiresInMinutes}} min' }],
    });

    const response = await otp(sender.key, {
      from: sender.from,
      to: uniqueAddress(),
      code: '777',
      appName: 'Shop',
      expiresInMinutes: 5,
      templateId: template.id,
    });

    expect(response.status).toBe(200);
    const [email] = await storedEmails(sender.domain);
    expect(email!.subject).toBe('Shop: 777');
    expect(email!.body.text).toContain('Code 777 for Shop, valid 5 min');
  });

  it('serves /api/otp with the same handler, and takes `email` for `to`', async () => {
    const sender = await createSender();
    const to = uniqueAddress();

    const response = await otp(sender.key, { from: sender.from, email: to, code: '1234' }, '/api/otp');

    expect(response.status).toBe(200);
    expect((await storedEmails(sender.domain)).map((email) => email.destination.to)).toEqual([[to]]);
  });

  it('answers each bad input with its code and field', async () => {
    const sender = await createSender();
    const base = { from: sender.from, to: uniqueAddress(), code: '1234' };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...base, to: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'to'],
      [{ ...base, email: uniqueAddress() }, 422, 'VALIDATION_ERROR', 'email'],
      [{ ...base, to: 'nope' }, 422, 'INVALID_EMAIL', 'to'],
      [{ ...base, to: undefined, email: 'nope' }, 422, 'INVALID_EMAIL', 'email'],
      [{ ...base, code: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'code'],
      [{ ...base, code: '' }, 400, 'MISSING_REQUIRED_FIELD', 'code'],
      [{ ...base, code: '1234567890123' }, 422, 'VALIDATION_ERROR', 'code'],
      [{ ...base, code: '12 34' }, 422, 'VALIDATION_ERROR', 'code'],
      [{ ...base, code: '<b>1</b>' }, 422, 'VALIDATION_ERROR', 'code'],
      [{ ...base, code: 1234 }, 422, 'VALIDATION_ERROR', 'code'],
      [{ ...base, expiresInMinutes: 0 }, 422, 'VALIDATION_ERROR', 'expiresInMinutes'],
      [{ ...base, expiresInMinutes: 2.5 }, 422, 'VALIDATION_ERROR', 'expiresInMinutes'],
      [{ ...base, appName: 'A\r\nBcc: x@example.org' }, 422, 'VALIDATION_ERROR', 'appName'],
      [{ ...base, from: undefined }, 400, 'MISSING_REQUIRED_FIELD', 'from'],
      [{ ...base, templateId: 'tpl_nope' }, 404, 'TEMPLATE_NOT_FOUND', 'templateId'],
      [{ ...base, idempotencyKey: 'has space' }, 422, 'VALIDATION_ERROR', 'idempotencyKey'],
      [{ ...base, variables: {} }, 422, 'VALIDATION_ERROR', 'variables'],
    ];

    for (const [body, status, error, field] of cases) {
      const response = await otp(sender.key, body);
      expect({ body, status: response.status, error: response.body.error, field: response.body.field }).toEqual({ body, status, error, field });
    }
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('still sends codes to unsubscribed contacts, but not to bounced ones', async () => {
    const sender = await createSender();
    const [unsubscribed, bounced] = [uniqueAddress('unsub'), uniqueAddress('bounced')];
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'A' } })).body.data;
    await request('POST', '/api/contacts', { key: sender.key, body: { email: unsubscribed, audienceId: audience.id, status: 'unsubscribed' } });
    await request('POST', '/api/contacts', { key: sender.key, body: { email: bounced, audienceId: audience.id, status: 'bounced' } });

    const toUnsubscribed = await otp(sender.key, { from: sender.from, to: unsubscribed, code: '1' });
    const toBounced = await otp(sender.key, { from: sender.from, email: bounced, code: '1' });

    expect(toUnsubscribed.status).toBe(200);
    expect(toBounced.status).toBe(422);
    expect(toBounced.body).toEqual({
      success: false,
      error: 'RECIPIENT_SUPPRESSED',
      message: RECIPIENT_SUPPRESSED.message,
      field: 'email',
      emailId: expect.stringMatching(/^eml_/),
      trackingId: expect.stringMatching(/^svc_/),
    });
    const sent = await request('GET', `/api/emails/${toUnsubscribed.body.emailId}`, { key: sender.key });
    const suppressed = await request('GET', `/api/emails/${toBounced.body.emailId}`, { key: sender.key });
    expect(sent.body.data).toMatchObject({ type: 'otp', status: 'sent', to: unsubscribed });
    expect(suppressed.body.data).toMatchObject({ type: 'otp', status: 'suppressed', to: bounced, error: { code: 'RECIPIENT_SUPPRESSED' }, sesMessageId: null });
    expect((await storedEmails(sender.domain)).map((email) => email.destination.to)).toEqual([[unsubscribed]]);
  });
});

describe('OTP per-recipient limit', () => {
  it("allows the plan's number per recipient in 5 minutes, then 429 with the wait until the oldest leaves", async () => {
    const sender = await createSender({ plan: 'pro' });
    const to = uniqueAddress();
    const other = uniqueAddress();

    const allowed = [];
    for (let index = 0; index < 5; index++) {
      allowed.push(await otp(index % 2 ? sender.testKey : sender.key, { from: sender.from, to: index === 4 ? to.toUpperCase() : to, code: String(index) }));
    }
    const refused = await otp(sender.key, { from: sender.from, to, code: '9' });
    const otherRecipient = await otp(sender.key, { from: sender.from, to: other, code: '9' });

    expect(allowed.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('5 OTP emails'),
      retryAfter: expect.any(Number),
    });
    expect(refused.body.retryAfter).toBeGreaterThan(290);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(300);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    expect(otherRecipient.status).toBe(200);
    // Test keys count, but never reach SES: 3 live sends to `to`, one to `other`.
    expect(await storedEmails(sender.domain)).toHaveLength(4);
  });

  it("holds under concurrency: of 15 racing requests exactly the plan's 8 are sent", async () => {
    const sender = await createSender({ plan: 'business' });
    const to = uniqueAddress();

    const responses = await Promise.all(Array.from({ length: 15 }, (_, index) => otp(sender.key, { from: sender.from, to, code: String(index) })));

    expect(responses.map((response) => response.status).sort()).toEqual([...Array(8).fill(200), ...Array(7).fill(429)]);
    expect(await storedEmails(sender.domain)).toHaveLength(8);
  });

  it('slides: a send leaves the window 5 minutes after it was made', async () => {
    const sender = await createSender({ plan: 'free' });
    const principal: Principal = { accountId: sender.accountId, keyId: sender.keyId, env: 'live', permission: 'full', plan: 'free' };
    const start = Date.parse('2026-11-21T10:00:00Z');
    const at = (seconds: number) => new Date(start + seconds * 1000);
    const to = uniqueAddress();

    await admitOtp(principal, to, at(0));
    await admitOtp(principal, to, at(60));
    await admitOtp(principal, to, at(120));
    const full = await admitOtp(principal, to, at(180)).catch((error: unknown) => error);
    const stillFull = await admitOtp(principal, to, at(299)).catch((error: unknown) => error);
    await admitOtp(principal, to, at(301));
    const fullAgain = await admitOtp(principal, to, at(302)).catch((error: unknown) => error);

    expect(full).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { retryAfter: 120 } });
    expect(stillFull).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { retryAfter: 1 } });
    // The second send (at 60 s) is now the oldest: it leaves at 360 s.
    expect(fullAgain).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { retryAfter: 58 } });
  });
});
