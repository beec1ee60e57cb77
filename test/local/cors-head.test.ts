import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { allowedOrigins, corsHeaders } from '#shared/platform/http/cors.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createForm } from '../forms/support.ts';

const ORIGIN = 'https://www.shop.example';
const unique = () => Math.random().toString(36).slice(2, 10);

async function publishedForm() {
  const { key } = await createTestAccount();
  return createForm(key, { slug: `cors-${unique()}` });
}

describe('CORS on the public form routes, local server as API Gateway', () => {
  it("answers the submit route's preflight from any origin, for POST and Content-Type, never with credentials", async () => {
    const form = await publishedForm();

    const response = await request('OPTIONS', `/api/forms/${form.id}/submit`, {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.body).toBe('');
  });

  it("answers the public view's preflight for GET and HEAD", async () => {
    const response = await request('OPTIONS', '/api/forms/public/any-slug', { headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
  });

  it("puts the CORS header on the public routes' answers, errors included", async () => {
    const form = await publishedForm();

    const view = await request('GET', `/api/forms/public/${form.slug}`, { headers: { origin: ORIGIN } });
    const submitted = await request('POST', `/api/forms/${form.id}/submit`, { headers: { origin: ORIGIN }, body: { email: `cors-${unique()}@example.org` } });
    const unknown = await request('POST', '/api/forms/frm_nothing/submit', { headers: { origin: ORIGIN }, body: { email: 'a@example.org' } });

    expect(view.status).toBe(200);
    expect(submitted.status).toBe(200);
    expect(unknown.status).toBe(404);
    for (const response of [view, submitted, unknown]) expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives keyed routes no preflight (405, no CORS headers) and no CORS header on their answers', async () => {
    const { key } = await createTestAccount();

    const preflight = await request('OPTIONS', '/api/contacts', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    const formPreflight = await request('OPTIONS', '/api/forms/frm_x', { headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    const answer = await request('GET', '/api/contacts', { key, headers: { origin: ORIGIN } });

    for (const response of [preflight, formPreflight]) {
      expect(response.status).toBe(405);
      expect(response.body).toMatchObject({ success: false, error: 'METHOD_NOT_ALLOWED' });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with a list of origins, echoes only a listed one, varying on Origin', () => {
    const event = (origin?: string) => ({ headers: origin ? { origin } : {} }) as unknown as APIGatewayProxyEventV2;
    const allowed = allowedOrigins('https://a.example, https://b.example');

    expect(allowed).toEqual(['https://a.example', 'https://b.example']);
    expect(corsHeaders(event('https://b.example'), allowed)).toEqual({ 'Access-Control-Allow-Origin': 'https://b.example', Vary: 'Origin' });
    expect(corsHeaders(event('https://evil.example'), allowed)).toEqual({ Vary: 'Origin' });
    expect(corsHeaders(event(), allowed)).toEqual({ Vary: 'Origin' });
    expect(allowedOrigins('*')).toBe('*');
  });
});

describe('HEAD wherever GET works', () => {
  it("answers a keyed GET route's HEAD with the GET's status and headers and no body", async () => {
    const { key } = await createTestAccount();

    const get = await request('GET', '/api/audiences', { key });
    const head = await request('HEAD', '/api/audiences', { key });

    expect(head.status).toBe(get.status);
    expect(head.body).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
  });

  it('answers HEAD of a hosted form page and of the API description, and of an unknown key with 401', async () => {
    const form = await publishedForm();

    const page = await request('HEAD', `/f/${form.slug}`);
    const document = await request('HEAD', '/openapi.json');
    const unauthorized = await request('HEAD', '/api/contacts', { key: 'svc_live_nope' });

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(document.status).toBe(200);
    expect(unauthorized.status).toBe(401);
    for (const response of [page, document, unauthorized]) expect(response.body).toBe('');
  });

  it('counts no view for a HEAD of the hosted page or the public view (link checkers open nothing), as a GET does', async () => {
    const { key } = await createTestAccount();
    const form = await createForm(key, { slug: `head-${unique()}` });

    const heads = [await request('HEAD', `/f/${form.slug}`), await request('HEAD', `/api/forms/public/${form.slug}`)];
    const listed = async () => (await request('GET', '/api/forms', { key })).body.forms.find((item: { id: string }) => item.id === form.id).analytics.views;
    const afterHeads = await listed();
    await request('GET', `/f/${form.slug}`);

    expect(heads.map((head) => head.status)).toEqual([200, 200]);
    expect(afterHeads).toBe(0);
    expect(await listed()).toBe(1);
  });

  it('lists HEAD as allowed where GET is, and refuses HEAD where there is no GET', async () => {
    const put = await request('PUT', '/api/contacts');
    const head = await request('HEAD', '/api/email/send');
    const nowhere = await request('HEAD', '/api/nothing-here');

    expect(put.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expect(nowhere.status).toBe(404);
  });
});
