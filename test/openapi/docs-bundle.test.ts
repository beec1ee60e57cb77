/** The deployed /docs function: its asset carries the renderer it inlines, and answers the page from plain Node. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EndpointFunction } from '../../lib/endpoint-function.ts';

const outdir = mkdtempSync(join(tmpdir(), 'postlane-docs-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it('bundles system/docs with Swagger UI beside it and serves the page from the bundle alone', () => {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Docs', { env: { region: 'eu-west-1' } });
  new EndpointFunction(stack, 'Docs', { handler: 'system/docs', tableActions: [], table: TableV2.fromTableName(stack, 'Table', 'postlane') });
  app.synth();
  const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
  const root = join(outdir, asset!);

  expect(existsSync(join(root, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'))).toBe(true);
  expect(existsSync(join(root, 'node_modules/swagger-ui-dist/swagger-ui.css'))).toBe(true);
  // Run from the asset directory in a separate Node process, as Lambda would: nothing of this repository's node_modules is reachable.
  const script = `
    const { handler } = await import(${JSON.stringify(pathToFileURL(join(root, 'index.mjs')).href)});
    const answer = await handler({ rawPath: '/docs', headers: {}, requestContext: { http: { method: 'GET' } } }, {});
    process.stdout.write(JSON.stringify({ statusCode: answer.statusCode, length: answer.body.length, renderer: answer.body.includes('SwaggerUIBundle') }));`;
  const lines = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: root }).trim().split('\n');
  const answer = JSON.parse(lines.at(-1)!);

  expect(answer).toEqual({ statusCode: 200, length: expect.any(Number), renderer: true });
  expect(answer.length).toBeGreaterThan(1_000_000);
}, 120_000);
