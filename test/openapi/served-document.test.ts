/**
 * GET /openapi.json names the deployment that served it as its first server,
 * from configuration (PUBLIC_BASE_URL: the test server's own address here, as
 * `npm start` sets it), never from what the request says about its host.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { invoke, request, startApi } from '../support/api.ts';

const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { servers: { url: string }[] };
const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };

describe('GET /openapi.json', () => {
  it('lists the address that served it first, then the regional servers of the committed document', async () => {
    const { url: base } = await startApi();

    const { status, body } = await request('GET', '/openapi.json');

    expect(status).toBe(200);
    expect(body.servers[0]).toEqual({ url: base, description: expect.any(String) });
    expect(body.servers.slice(1).map((server: { url: string }) => server.url)).toEqual([
      'https://{domain}',
      'https://{region}.{domain}',
      'https://{apiId}.execute-api.{region}.amazonaws.com',
    ]);
    // The committed file keeps its generic list: one file for every deployment.
    expect(committed.servers.map((server) => server.url)).toContain('http://127.0.0.1:3000');
    expect(committed.servers.map((server) => server.url)).not.toContain(base);
  });

  it('ignores a forged Host, X-Forwarded-Host and X-Forwarded-Proto, over HTTP and at the handler', async () => {
    const { url: base } = await startApi();

    const overHttp = await request('GET', '/openapi.json', { headers: FORGED });
    const invoked = await invoke('system/openapi', { headers: FORGED, requestContext: { domainName: 'evil.example', domainPrefix: 'evil' } });

    expect(overHttp.body.servers[0].url).toBe(base);
    expect(JSON.parse(String(invoked.body)).servers[0].url).toBe(base);
    expect(JSON.stringify(overHttp.body)).not.toContain('evil.example');
    expect(String(invoked.body)).not.toContain('evil.example');
  });

  it('is the document the reference page loads: the URL configured in /docs answers it', async () => {
    const { url: base } = await startApi();
    const page = await request('GET', '/docs');
    const options = JSON.parse(/SwaggerUIBundle\((\{.*?\})\);<\/script>/.exec(page.body)![1]!) as { url: string };

    const served = await fetch(new URL(options.url, `${base}/docs`));

    expect(served.status).toBe(200);
    expect(((await served.json()) as { servers: { url: string }[] }).servers[0]!.url).toBe(base);
  });
});
