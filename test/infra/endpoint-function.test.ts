import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FALLBACK_HANDLER } from '#shared/platform/http/routes.ts';
import { EndpointFunction, type EndpointFunctionProps } from '../../lib/endpoint-function.ts';
import { ofType, pair, permissionsOf, resourcesOf, testApp } from './template.ts';

function stackWith(app: App, props: Omit<EndpointFunctionProps, 'table'>) {
  const stack = new Stack(app, 'Test', { env: { region: 'eu-west-1' } });
  const endpoint = new EndpointFunction(stack, 'Endpoint', { ...props, table: TableV2.fromTableName(stack, 'Table', 'postlane') });
  return { stack, endpoint };
}

describe('EndpointFunction', () => {
  it('grants SES sending only when asked, within its own account and region, on the configuration set it names and its tracking sibling', () => {
    const { stack } = stackWith(testApp(), {
      handler: FALLBACK_HANDLER,
      tableActions: [],
      sesActions: ['SendEmail'],
      sesConfigurationSet: 'postlane-feedback',
    });
    const resources = resourcesOf(Template.fromStack(stack));
    const [functionId] = ofType(resources, 'AWS::Lambda::Function')[0]!;

    const ses = [...permissionsOf(stack, resources, functionId)].filter((entry) => entry.startsWith('ses:'));

    expect(new Set(ses)).toEqual(
      new Set([
        pair(stack, 'ses:SendEmail', stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })),
        pair(stack, 'ses:SendEmail', stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: 'postlane-feedback' })),
        pair(stack, 'ses:SendEmail', stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: 'postlane-feedback-tracking' })),
      ]),
    );
  });

  describe('bundled for real', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'postlane-bundle-'));
    afterAll(() => rmSync(outdir, { recursive: true, force: true }));

    it('is an ES module with its chunks, SDK included, that Node loads and that answers an API Gateway v2 event', () => {
      const app = new App({ outdir });
      const { stack } = stackWith(app, { handler: FALLBACK_HANDLER, tableActions: [] });
      // A keyed route reaches DynamoDB (its key's item) from its first middleware; the fallback reaches nothing.
      new EndpointFunction(stack, 'ContactsGet', {
        handler: 'contacts/get',
        table: TableV2.fromTableName(stack, 'ContactsTable', 'postlane'),
        tableActions: ['GetItem'],
      });
      app.synth();
      // One asset per function, each its own handler's: CDK reuses a bundle whose options look alike.
      const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
      expect(assets).toHaveLength(2);
      const codeOf = (asset: string) => readFileSync(join(outdir, asset, 'index.mjs'), 'utf8');
      const asset = assets.find((name) => codeOf(name).includes('@aws-sdk/client-dynamodb'));
      expect(asset).toBeDefined();
      expect(assets.filter((name) => name !== asset).map((name) => codeOf(name).includes('@aws-sdk/client-dynamodb'))).toEqual([false]);
      const bundle = join(outdir, asset!, 'index.mjs');
      expect(readdirSync(join(outdir, asset!))).toEqual(['chunks', 'index.mjs']);
      expect(readdirSync(join(outdir, asset!, 'chunks')).every((name) => name.endsWith('.mjs'))).toBe(true);
      // The stack bundles with lib/bundling.ts's settings: Lambda's credential providers, not the SDK's whole default chain.
      const code = readFileSync(bundle, 'utf8');
      expect(code).toContain('@aws-sdk/credential-provider-env - fromEnv');
      expect(code).not.toContain('defaultProvider::fromSSO');
      // ...and its stand-ins for zlib and process: Node loads neither built-in with the module.
      expect(code).not.toMatch(/from\s*"node:(zlib|process)"/);

      // A separate plain Node process, as in Lambda: vitest's own module loader would hide ESM/CommonJS mistakes.
      const script = `
        const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
        const answer = await handler({ rawPath: '/api/contacts/con_1', routeKey: 'GET /api/contacts/{id}', headers: {}, requestContext: { http: { method: 'GET' } } }, {});
        process.stdout.write(JSON.stringify(answer));`;
      const lines = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8' }).split('\n');
      const answer = JSON.parse(lines.at(-1)!);

      // The handler's access log line comes first: JSON, as every log line. No key: refused before any call.
      expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ message: 'request', status: 401 })]);
      expect(answer.statusCode).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    });
  });
});
