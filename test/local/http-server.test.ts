import { describe, expect, it } from 'vitest';
import { request, startApi } from '../support/api.ts';
import { API_GATEWAY_MAX_BODY_BYTES } from '#dev/local/http-server.ts';

describe('local HTTP API: dispatch through the route table', () => {
  it('answers an unknown path with the 404 NOT_FOUND envelope', async () => {
    const response = await request('GET', '/api/nothing-here');

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({ success: false, error: 'NOT_FOUND', message: expect.any(String) });
  });

  it('answers a known path with another method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const response = await request('PUT', '/api/contacts');

    expect(response.status).toBe(405);
    expect(response.body).toEqual({ success: false, error: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
    expect(response.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('runs the route handler, whose middleware refuses a request without a key with 401', async () => {
    const response = await request('GET', '/api/contacts');

    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: 'UNAUTHORIZED', message: expect.any(String) });
  });
});

describe('local HTTP API: request size', () => {
  it('refuses a body over the API Gateway limit with 413 PAYLOAD_TOO_LARGE before any handler runs', async () => {
    const response = await request('POST', '/api/contacts', { rawBody: Buffer.alloc(API_GATEWAY_MAX_BODY_BYTES + 1, 0x20) });

    expect(response.status).toBe(413);
    expect(response.body).toEqual({ success: false, error: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
  });

  it("a body at that limit passes API Gateway but not Lambda's 6 MB: API Gateway's own 413, no handler runs", async () => {
    const { url } = await startApi();
    const response = await fetch(`${url}/nowhere`, { method: 'POST', body: Buffer.alloc(API_GATEWAY_MAX_BODY_BYTES, 0x20) });

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
  });
});
