import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { request, startApi } from '../support/api.ts';

// Handlers that answer with the event they were given, to see it as the server built it.
const echo = vi.hoisted(() => ({
  handler: async (event: unknown, context: { functionName: string }) => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event, functionName: context.functionName }),
  }),
}));
vi.mock('../../functions/system/fallback.ts', () => echo);
vi.mock('../../functions/contacts/get-by-email.ts', () => echo);

/** fetch joins a repeated header into one line; node:http can send it on two. */
async function rawGet(path: string, headers: Record<string, string | string[]>): Promise<{ event: APIGatewayProxyEventV2; functionName: string }> {
  const { port } = await startApi();
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = '';
      response
        .setEncoding('utf8')
        .on('data', (chunk: string) => (body += chunk))
        .on('end', () => resolve(JSON.parse(body)));
    });
    sent.on('error', reject).end();
  });
}

describe('local HTTP API: the event a handler receives', () => {
  it('carries the route key, decoded path parameters and the HTTP details of a routed request', async () => {
    const { event, functionName } = await rawGet('/api/contacts/email/a%2Bb%40example.com?x=1&x=2', {
      'X-Api-Key': 'svc_live_x',
      'X-Multi': ['one', 'two'],
      Cookie: 'a=1; b=2',
      'User-Agent': 'postlane-test',
    });

    expect(functionName).toBe('postlane-contacts-get-by-email');
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /api/contacts/email/{email}',
      rawPath: '/api/contacts/email/a%2Bb%40example.com',
      rawQueryString: 'x=1&x=2',
      cookies: ['a=1', 'b=2'],
      headers: { 'x-api-key': 'svc_live_x', 'x-multi': 'one,two', 'user-agent': 'postlane-test', 'x-forwarded-for': '127.0.0.1' },
      queryStringParameters: { x: '1,2' },
      pathParameters: { email: 'a+b@example.com' },
      requestContext: {
        http: { method: 'GET', path: '/api/contacts/email/a%2Bb%40example.com', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'postlane-test' },
        routeKey: 'GET /api/contacts/email/{email}',
        stage: '$default',
      },
      isBase64Encoded: false,
    });
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event).not.toHaveProperty('body');
  });

  it('sends an unmatched request to the $default fallback with its body', async () => {
    const response = await request('POST', '/f/some-form', {
      rawBody: 'email=a%40example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const binary = await request('POST', '/upload', { rawBody: Buffer.from([0xff, 0x00, 0xfe]) });

    expect(response.body.functionName).toBe('postlane-system-fallback');
    expect(response.body.event).toMatchObject({ routeKey: '$default', rawPath: '/f/some-form', body: 'email=a%40example.com', isBase64Encoded: false });
    expect(response.body.event).not.toHaveProperty('pathParameters');
    expect(binary.body.event).toMatchObject({ body: Buffer.from([0xff, 0x00, 0xfe]).toString('base64'), isBase64Encoded: true });
  });
});
