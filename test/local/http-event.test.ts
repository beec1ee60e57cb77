import { describe, expect, it } from 'vitest';
import { buildHttpApiEvent, lambdaContext, routeRequest, toHttpResult } from '#dev/local/http-event.ts';

describe('routeRequest', () => {
  it('names the handler, the route key and the decoded path parameters', () => {
    expect(routeRequest('GET', '/api/contacts/email/a%2Bb%40example.com')).toEqual({
      handler: 'contacts/get-by-email',
      routeKey: 'GET /api/contacts/email/{email}',
      pathParameters: { email: 'a+b@example.com' },
    });
    expect(routeRequest('POST', '/api/contacts/bulk')).toEqual({ handler: 'contacts/bulk-import', routeKey: 'POST /api/contacts/bulk' });
  });

  it('sends unmatched paths and methods to the $default fallback', () => {
    expect(routeRequest('GET', '/nowhere')).toEqual({ handler: 'system/fallback', routeKey: '$default' });
    expect(routeRequest('PUT', '/api/contacts')).toEqual({ handler: 'system/fallback', routeKey: '$default' });
  });
});

describe('buildHttpApiEvent', () => {
  const now = new Date('2026-11-21T09:05:03.042Z');

  it('builds the payload 2.0 event API Gateway sends', () => {
    const event = buildHttpApiEvent(
      {
        method: 'patch',
        url: '/api/contacts/con_1?tag=a&tag=b&q=x%20y&empty=',
        headers: { Host: 'api.local:3000', 'User-Agent': 'ua/1', 'X-Multi': ['1', '2'], Cookie: 'a=1; b=2', 'Content-Type': 'application/json' },
        body: Buffer.from('{"firstName":"Zoë"}'),
        sourceIp: '10.0.0.7',
        now,
      },
      { handler: 'contacts/update', routeKey: 'PATCH /api/contacts/{id}', pathParameters: { id: 'con_1' } },
    );

    expect(event).toEqual({
      version: '2.0',
      routeKey: 'PATCH /api/contacts/{id}',
      rawPath: '/api/contacts/con_1',
      rawQueryString: 'tag=a&tag=b&q=x%20y&empty=',
      cookies: ['a=1', 'b=2'],
      headers: {
        host: 'api.local:3000',
        'user-agent': 'ua/1',
        'x-multi': '1,2',
        'content-type': 'application/json',
        'x-forwarded-for': '10.0.0.7',
        'x-forwarded-proto': 'http',
      },
      queryStringParameters: { tag: 'a,b', q: 'x y', empty: '' },
      pathParameters: { id: 'con_1' },
      requestContext: {
        accountId: 'local',
        apiId: 'local',
        domainName: 'api.local:3000',
        domainPrefix: 'api',
        http: { method: 'PATCH', path: '/api/contacts/con_1', protocol: 'HTTP/1.1', sourceIp: '10.0.0.7', userAgent: 'ua/1' },
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        routeKey: 'PATCH /api/contacts/{id}',
        stage: '$default',
        time: '21/Nov/2026:09:05:03 +0000',
        timeEpoch: now.getTime(),
      },
      body: '{"firstName":"Zoë"}',
      isBase64Encoded: false,
    });
  });

  it('leaves out what the request lacks, as API Gateway does', () => {
    const event = buildHttpApiEvent({ method: 'GET', url: '/x', headers: { host: 'h' } }, { handler: 'system/fallback', routeKey: '$default' });

    expect(event.rawQueryString).toBe('');
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('pathParameters');
    expect(event).not.toHaveProperty('cookies');
    expect(event).not.toHaveProperty('body');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('base64-encodes a body that is not UTF-8', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);

    const event = buildHttpApiEvent({ method: 'POST', url: '/x', body: bytes }, { handler: 'system/fallback', routeKey: '$default' });

    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64')).toEqual(bytes);
  });
});

describe('lambdaContext', () => {
  it('looks like a deployed function of that handler with the HTTP API timeout', () => {
    const context = lambdaContext('contacts/get');

    expect(context.functionName).toBe('postlane-contacts-get');
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(29_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(30_000);
  });
});

describe('toHttpResult', () => {
  it('keeps a structured result, HTML included, and decodes a base64 body', () => {
    const html = toHttpResult({ statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: '<h1>Form</h1>', cookies: ['s=1'] });
    const binary = toHttpResult({ statusCode: 201, body: Buffer.from([1, 2, 3]).toString('base64'), isBase64Encoded: true });

    expect(html).toEqual({ statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, cookies: ['s=1'], body: Buffer.from('<h1>Form</h1>') });
    expect(binary.body).toEqual(Buffer.from([1, 2, 3]));
  });

  it('answers anything else as a 200 JSON body, as API Gateway infers', () => {
    expect(toHttpResult({ ok: true } as never)).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      cookies: [],
      body: Buffer.from('{"ok":true}'),
    });
  });
});
