/**
 * cdk-nag's AwsSolutions and Serverless packs over both regional stacks,
 * under every documented context option: every finding is fixed or
 * acknowledged beside its construct with a reason
 * (lib/nag.ts). cdk-nag 3 runs as a CDK policy-validation plugin, so a finding
 * fails synthesis and is listed in the cloud assembly's validation report.
 * CDK's built-in template validation reports there too: it runs here, on every
 * context, and nowhere else in the tests (test/infra/template.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { addRegionalStacks } from '../../lib/app.ts';
import { testApp } from './template.ts';

interface Report {
  pluginReports: { pluginName: string; violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/** `rule severity path` for every unacknowledged finding of both packs, errors and warnings alike, in an app with this context. */
function findings(build: (app: App) => void, context: Record<string, string> = {}): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'postlane-nag-'));
  outdirs.push(outdir);
  const app = testApp(context, { outdir, builtinCloudFormationValidation: true });
  build(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  try {
    app.synth();
  } catch (error) {
    if (!existsSync(join(outdir, 'validation-report.json'))) throw error;
  }
  const path = join(outdir, 'validation-report.json');
  if (!existsSync(path)) return [];
  const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.flatMap((violation) =>
      violation.violatingConstructs.map((construct) => `${violation.ruleName} ${violation.severity} ${construct.constructPath}`),
    ),
  );
}

/**
 * Context that turns every documented option on, in the combinations that
 * build different stacks: the options that add resources (an alarm topic, a
 * custom domain with its distributions' certificate, a web ACL, an event bus grant) all at once, and each way the table can
 * come to a stack (created with replicas, a replica, created alone, retained).
 */
const CONTEXTS: Record<string, Record<string, string>> = {
  'the defaults (a global table created in the first region, a replica in the second)': {},
  'every optional setting, with one table per region': {
    'postlane:regions': 'us-east-1,eu-central-1',
    'postlane:independentRegions': 'true',
    'postlane:stage': 'staging',
    'postlane:tableName': 'postlane-staging-data',
    'postlane:alarmEmail': 'ops@example.com',
    'postlane:domainName': 'api.example.com',
    'postlane:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
    'postlane:hostedZoneName': 'example.com',
    'postlane:certificateArn': 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
    'postlane:webAclArn': 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/postlane/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
    'postlane:throttleRate': '100',
    'postlane:throttleBurst': '200',
    'postlane:publicThrottleRate': '5',
    'postlane:publicThrottleBurst': '10',
    'postlane:accessLogRetentionDays': '90',
    'postlane:retentionDays': '7',
    'postlane:eventBus': 'default',
    'postlane:corsOrigins': 'https://www.example.com',
    'postlane:mailFrom': 'Postlane <no-reply@mail.example.com>',
  },
  'the table and secret of an earlier deployment, retained': { 'postlane:useRetainedData': 'true', 'postlane:alarmEmail': 'ops@example.com' },
};

/** The options docs/deploying.md documents ("Context options"), and cdk.json sets. */
function documentedOptions(): string[] {
  const table = readFileSync('docs/deploying.md', 'utf8').split('## Context options')[1]!.split('\n## ')[0]!;
  const documented = table
    .split('\n')
    .filter((line) => line.startsWith('| `postlane:'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`(postlane:[A-Za-z]+)`/g)].map((match) => match[1]!));
  const configured = Object.keys((JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, unknown> }).context);
  return [...new Set([...documented, ...configured])].sort();
}

describe('cdk-nag', () => {
  it('is run with every documented context option', () => {
    const covered = new Set(Object.values(CONTEXTS).flatMap((context) => Object.keys(context)));
    expect(documentedOptions().length).toBeGreaterThan(10);
    expect(documentedOptions().filter((option) => !covered.has(option))).toEqual([]);
  });

  it.each(Object.entries(CONTEXTS))(
    'finds nothing unacknowledged in either regional stack (AwsSolutions and Serverless packs): %s',
    (_name, context) => {
      expect(findings((app) => addRegionalStacks(app), context)).toEqual([]);
    },
    120_000,
  );

  it('would report a finding: an unacknowledged queue without TLS enforcement or dead-letter queue', () => {
    const found = findings((app) => new Queue(new Stack(app, 'Probe', { env: { region: 'us-east-1' } }), 'Queue'));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^AwsSolutions-SQS4 error Probe\/Queue/),
        expect.stringMatching(/^Serverless-SQSRedrivePolicy error Probe\/Queue/),
      ]),
    );
  }, 120_000);

  it("would report a finding of CDK's template validation: a property the resource type does not have", () => {
    const found = findings(
      (app) =>
        new CfnResource(new Stack(app, 'Probe', { env: { region: 'us-east-1' } }), 'Bucket', { type: 'AWS::S3::Bucket', properties: { NoSuchProperty: true } }),
    );
    expect(found.filter((finding) => !/^(AwsSolutions|Serverless)-/.test(finding))).toEqual([expect.stringContaining('Probe/Bucket')]);
  }, 120_000);
});
