/**
 * Behind the deployed distribution every submission reaches API Gateway from a
 * CloudFront edge: the per-address limit counts the viewer's address, which
 * CloudFront sends as CloudFront-Viewer-Address (shared/platform/http/endpoint.ts, callerAddress).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRoom } from '../support/clock.ts';
import { SUBMISSION_RATE_LIMITS } from '#shared/forms/submissions.ts';
import { accountWithForm, submit } from './support.ts';

afterEach(() => vi.useRealTimers());

/** One CloudFront edge's address, which many viewers share. */
const EDGE = '130.176.0.12';

const from = (viewer: string) => ({ ip: EDGE, headers: { 'cloudfront-viewer-address': viewer } });

describe('form submissions through CloudFront', () => {
  it('count each viewer’s address, not the edge’s: one viewer past the limit is refused, another through the same edge is not', async () => {
    const { form } = await accountWithForm({ fields: [{ id: 'email', type: 'email', label: 'Email' }] });
    const limit = SUBMISSION_RATE_LIMITS.perAddress.perWindow;
    makeRoom(60, 20);

    for (let index = 0; index < limit; index++) expect((await submit(form.id, { email: 'a@example.com' }, from('203.0.113.9:50612'))).status).toBe(200);
    const refused = await submit(form.id, { email: 'a@example.com' }, from('203.0.113.9:50999'));
    // The burst may have filled the form's own one-second window too.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const otherViewer = await submit(form.id, { email: 'b@example.com' }, from('2001:db8::7:443'));

    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many submissions from this address/);
    expect(otherViewer.status).toBe(200);
  });
});
