/**
 * cdk-nag's AwsSolutions and Serverless packs over both regional stacks:
 * every finding is fixed or acknowledged beside its construct with a reason
 * (lib/nag.ts). cdk-nag 3 runs as a CDK policy-validation plugin, so a finding
 * fails synthesis and is listed in the cloud assembly's validation report.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { addRegionalStacks } from '../../lib/app.ts';

interface Report {
  pluginReports: { pluginName: string; violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/** `rule severity path` for every unacknowledged finding of both packs, errors and warnings alike. */
function findings(build: (app: App) => void): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'postlane-nag-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
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

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in either regional stack (AwsSolutions and Serverless packs)', () => {
    expect(findings((app) => addRegionalStacks(app))).toEqual([]);
  }, 120_000);

  it('would report a finding: an unacknowledged queue without TLS enforcement or dead-letter queue', () => {
    const found = findings((app) => new Queue(new Stack(app, 'Probe', { env: { region: 'us-east-1' } }), 'Queue'));
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^AwsSolutions-SQS4 error Probe\/Queue/),
        expect.stringMatching(/^Serverless-SQSRedrivePolicy error Probe\/Queue/),
      ]),
    );
  }, 120_000);
});
