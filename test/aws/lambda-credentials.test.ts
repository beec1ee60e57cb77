/**
 * The credential providers the function bundles carry in place of the SDK's
 * default chain (shared/platform/aws/lambda-credentials.ts), and a bundled handler
 * signing with them in a plain Node process, as in Lambda.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '#shared/platform/aws/lambda-credentials.ts';
import { ID_BODY_LENGTH } from '#shared/platform/ids.ts';
import { buildHttpApiEvent } from '#dev/local/http-event.ts';
import { bundleHandler } from '../../lib/bundling.ts';

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
] as const;
const saved = Object.fromEntries(CREDENTIAL_VARIABLES.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of CREDENTIAL_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function clearCredentialVariables() {
  for (const name of CREDENTIAL_VARIABLES) delete process.env[name];
}

/** A local HTTP server answering every request with `reply`, remembering the headers it was sent. */
async function serve(
  reply: (headers: IncomingHttpHeaders) => { status: number; type: string; body: string },
): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers);
      const { status, type, body } = reply(req.headers);
      res.writeHead(status, { 'content-type': type }).end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('Lambda credential providers', () => {
  it('read the role credentials Lambda puts in the environment', async () => {
    clearCredentialVariables();
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDFROMENV', AWS_SECRET_ACCESS_KEY: 'secret-from-env', AWS_SESSION_TOKEN: 'token-from-env' });
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'AKIDFROMENV',
      secretAccessKey: 'secret-from-env',
      sessionToken: 'token-from-env',
    });
  });

  it('fetch container credentials when the runtime serves them over HTTP', async () => {
    const { url, seen, server } = await serve(() => ({
      status: 200,
      type: 'application/json',
      body: JSON.stringify({
        AccessKeyId: 'AKIDFROMHTTP',
        SecretAccessKey: 'secret-from-http',
        Token: 'token-from-http',
        Expiration: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    }));
    try {
      clearCredentialVariables();
      process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `${url}/credentials`;
      await expect(defaultProvider()()).resolves.toMatchObject({ accessKeyId: 'AKIDFROMHTTP', sessionToken: 'token-from-http' });
      expect(seen).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it('fail with a credentials error, not a crash, when neither is there', async () => {
    clearCredentialVariables();
    await expect(defaultProvider()()).rejects.toMatchObject({ name: 'CredentialsProviderError' });
  });
});

describe('a bundled handler', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'postlane-credentials-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('carries the Lambda providers instead of the default chain and signs DynamoDB calls with the environment credentials', async () => {
    const { metafile, entry: bundle } = await bundleHandler('audiences/list', join(outdir, 'audiences-list'));
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs).toContain('shared/platform/aws/lambda-credentials.ts');
    expect(inputs.filter((input) => /credential-provider-(node|ini|sso|process|web-identity)|nested-clients/.test(input))).toEqual([]);

    // DynamoDB here is a stub that knows no key (the key check's conditional update fails, with no item): the point is the signature on the request.
    const wellFormedKey = `svc_live_${'A'.repeat(2 * ID_BODY_LENGTH)}${'b'.repeat(32)}`;
    const dynamo = await serve(() => ({
      status: 400,
      type: 'application/x-amz-json-1.0',
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' }),
    }));
    try {
      const event = buildHttpApiEvent(
        { method: 'GET', url: '/api/audiences', headers: { host: 'api.test', 'x-api-key': wellFormedKey } },
        { handler: 'audiences/list', routeKey: 'GET /api/audiences' },
      );
      const script = `
        const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
        const answer = await handler(${JSON.stringify(event)}, { awsRequestId: 'bundle-test', getRemainingTimeInMillis: () => 10000 });
        process.stdout.write('\\n' + JSON.stringify(answer));`;
      const env = {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIDBUNDLETEST',
        AWS_SECRET_ACCESS_KEY: 'bundle-test-secret',
        AWS_SESSION_TOKEN: 'bundle-test-token',
        // The SDK's own endpoint variable: without DYNAMODB_ENDPOINT, shared/platform/config.ts leaves credentials to the provider, as deployed.
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.url,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      };
      const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { env });
      const answer = JSON.parse(stdout.split('\n').at(-1)!);
      expect(answer.statusCode).toBe(401);
      expect(dynamo.seen.length).toBeGreaterThan(0);
      expect(dynamo.seen[0]!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDBUNDLETEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request/);
      expect(dynamo.seen[0]!['x-amz-security-token']).toBe('bundle-test-token');
    } finally {
      dynamo.server.close();
    }
  });
});
