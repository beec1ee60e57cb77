/**
 * Behind the deployed distribution every submission reaches API Gateway from a
 * CloudFront edge: the per-address limit counts the viewer's address, which
 * CloudFront sends as CloudFront-Viewer-Address, but only beside the secret
 * header the distributions add (shared/platform/http/caller-address.ts):
 * anyone calling the stage's own address can write the first, not the second.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRoom } from '../support/clock.ts';
import { SUBMISSION_RATE_LIMITS } from '#shared/forms/submissions.ts';
import { ORIGIN_VERIFY_HEADER } from '#shared/platform/http/caller-address.ts';
import { accountWithForm, submit } from './support.ts';

const SECRET = vi.hoisted(() => {
  // As the stack configures its functions; read once, when the config loads.
  const secret = 'origin-verify-secret-of-the-test-stack-0123456789';
  process.env.ORIGIN_VERIFY_SECRET = secret;
  return secret;
});

afterEach(() => vi.useRealTimers());

/** One CloudFront edge's address, which many viewers share. */
const EDGE = '130.176.0.12';

const through = (ip: string, viewer: string, verify?: string) => ({
  ip,
  headers: { 'cloudfront-viewer-address': viewer, ...(verify === undefined ? {} : { [ORIGIN_VERIFY_HEADER]: verify }) },
});

describe('form submissions through CloudFront', () => {
  it('count each viewer’s address, not the edge’s: one viewer past the limit is refused, another through the same edge is not', async () => {
    const { form } = await accountWithForm({ fields: [{ id: 'email', type: 'email', label: 'Email' }] });
    makeRoom(60, 20);

    for (let index = 0; index < SUBMISSION_RATE_LIMITS.perAddress.perWindow; index++)
      expect((await submit(form.id, { email: 'a@example.com' }, through(EDGE, '203.0.113.9:50612', SECRET))).status).toBe(200);
    const refused = await submit(form.id, { email: 'a@example.com' }, through(EDGE, '203.0.113.9:50999', SECRET));
    // The burst may have filled the form's own one-second window too.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const otherViewer = await submit(form.id, { email: 'b@example.com' }, through(EDGE, '2001:db8::7:443', SECRET));

    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many submissions from this address/);
    expect(otherViewer.status).toBe(200);
  });

  it.each([
    ['without the distribution’s secret header', undefined],
    ['with a wrong one', 'a-guess-at-the-secret-of-the-same-length-012345678'],
    ['with an empty one', ''],
  ])('count the sender’s own address when CloudFront-Viewer-Address comes %s: a new forged viewer per request shares one limit', async (_, verify) => {
    const { form } = await accountWithForm({ fields: [{ id: 'email', type: 'email', label: 'Email' }] });
    makeRoom(60, 20);
    // Calling the stage's execute-api address directly, from one address of its own.
    const attacker = `attacker-${randomUUID()}`;

    for (let index = 0; index < SUBMISSION_RATE_LIMITS.perAddress.perWindow; index++) {
      const forged = through(attacker, `203.0.113.${index + 1}:443`, verify);
      expect((await submit(form.id, { email: 'a@example.com' }, forged)).status).toBe(200);
    }
    const refused = await submit(form.id, { email: 'a@example.com' }, through(attacker, '192.0.2.200:443', verify));

    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many submissions from this address/);
  });
});
