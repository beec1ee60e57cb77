/**
 * The bundles' rewrite of the SDK clients' schema tables (lib/bundling.ts
 * `sdkSchemaShaking`): every shape keeps its exact value, a function keeps
 * only the shapes its commands reach, and a bundled SendEmail still says
 * everything it said.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, expect, inject, it } from 'vitest';
import { bundleOptions, shakeableSchemas } from '../../lib/bundling.ts';
import { createSender, storedEmails, uniqueAddresses } from '../sending/support.ts';

const outdir = mkdtempSync(join(tmpdir(), 'postlane-schemas-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const CLIENTS = ['client-sesv2', 'client-dynamodb', 'client-sqs', 'client-secrets-manager'];

async function bundle(name: string, contents: string, shaking = true): Promise<string> {
  const outfile = join(outdir, `${name}.mjs`);
  const options = bundleOptions();
  await build({ ...options, plugins: shaking ? options.plugins : [], stdin: { contents, resolveDir: process.cwd() }, outfile });
  return outfile;
}

/** Runs `script` in a plain Node process, as Lambda would, with `bundles` imported as `a`, `b`, …; its JSON output. */
function run(bundles: string[], script: string, env: Record<string, string> = {}): any {
  const imports = bundles.map((file, index) => `const ${String.fromCharCode(97 + index)} = await import(${JSON.stringify(pathToFileURL(file).href)});`);
  const stdout = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', `${imports.join('\n')}\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

it('folds constant flags and names constant keys, and leaves any other key alone', () => {
  const source = [
    'const _e = "error";',
    'const _hE = "httpError";',
    'export var E$ = [-3, n0, _E, { [_e]: _c, [_hE]: 400, [other]: 1 }, [64 | 0, 64 | 21], [0]];',
  ].join('\n');

  expect(shakeableSchemas(source).split('\n').at(-1)).toBe('export var E$ = [-3, n0, _E, { "error": _c, "httpError": 400, [other]: 1 }, [64, 85], [0]];');
});

it.each(CLIENTS)('gives every shape of %s the same value as the unrewritten table', async (client) => {
  const contents = `export * from '@aws-sdk/${client}/dist-es/schemas/schemas_0.js';`;
  const [rewritten, original] = await Promise.all([bundle(`${client}-shaken`, contents), bundle(`${client}-original`, contents, false)]);
  // Shapes refer to each other through thunks (`() => Body$`), cyclically: compare what each returns, once per pair.
  const compared = run(
    [rewritten, original],
    `const seen = new Set();
    const differences = [];
    const same = (x, y, at) => {
      if (typeof x === 'function' && typeof y === 'function') {
        if (/^class\\b/.test(Function.prototype.toString.call(x)) || x.length > 0) return x.name === y.name || differences.push(at);
        if (seen.has(x)) return;
        seen.add(x);
        return same(x(), y(), at + '()');
      }
      if (x && typeof x === 'object' && y && typeof y === 'object') {
        if (seen.has(x)) return;
        seen.add(x);
        const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
        for (const key of keys) same(x[key], y[key], at + '.' + key);
        return;
      }
      if (!Object.is(x, y)) differences.push(at);
    };
    const names = Object.keys(b);
    for (const name of names) same(a[name], b[name], name);
    process.stdout.write(JSON.stringify({ shapes: names.length, sameNames: Object.keys(a).length === names.length, differences }));`,
  );

  expect(compared.shapes).toBeGreaterThan(50);
  expect(compared).toMatchObject({ sameNames: true, differences: [] });
});

it('keeps only the shapes a function reaches, and a bundled SendEmail still carries every field to SES', async () => {
  const sender = await createSender();
  const [to, cc, bcc, replyTo] = uniqueAddresses('to', 'cc', 'bcc', 'reply');
  const contents = `import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
    export const send = (input) => new SESv2Client({ endpoint: process.env.SES_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }).send(new SendEmailCommand(input));`;
  const file = await bundle('send-email', contents);
  const input = {
    FromEmailAddress: sender.from,
    Destination: { ToAddresses: [to], CcAddresses: [cc], BccAddresses: [bcc] },
    ReplyToAddresses: [replyTo],
    Content: {
      Simple: {
        Subject: { Data: 'Shaken, not stirred', Charset: 'UTF-8' },
        Body: { Text: { Data: 'plain' }, Html: { Data: '<p>html</p>' } },
        Headers: [{ Name: 'X-Postlane-Test', Value: 'kept' }],
      },
    },
    EmailTags: [{ Name: 'purpose', Value: 'schema-test' }],
  };
  const answer = run([file], `const sent = await a.send(${JSON.stringify(input)}); process.stdout.write(JSON.stringify({ messageId: sent.MessageId }));`, {
    SES_ENDPOINT: inject('sesEndpoint'),
  });

  expect(answer.messageId).toEqual(expect.any(String));
  const [stored] = await storedEmails(sender.domain);
  expect(stored).toMatchObject({
    from: sender.from,
    replyTo: [replyTo],
    destination: { to: [to], cc: [cc], bcc: [bcc] },
    subject: 'Shaken, not stirred',
    body: { text: 'plain', html: '<p>html</p>' },
  });
  expect(stored!.headers).toContainEqual({ name: 'X-Postlane-Test', value: 'kept' });
  // 480 shapes of SESv2 in the unrewritten table; a SendEmail bundle keeps its own.
  const code = readFileSync(file, 'utf8');
  expect(code).toContain('SendEmailRequest');
  expect(code).not.toContain('CreateEmailIdentityRequest');
});
