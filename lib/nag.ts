import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Why a cdk-nag finding stays, recorded on the construct it concerns (and so
 * on its children); test/infra/nag.test.ts fails on any finding without one.
 * cdk-nag 3 matches ids exactly: a finding with a detail is acknowledged as
 * `AwsSolutions-IAM5[Resource::...]`, each resource on its own.
 *
 * `acknowledgeFindings(bucket, { 'AwsSolutions-S1': 'uploads live a day; CloudTrail data events log access if needed' })`
 */
export function acknowledgeFindings(scope: IConstruct, reasons: Readonly<Record<string, string>>): void {
  for (const [id, reason] of Object.entries(reasons)) Validations.of(scope).acknowledge({ id, reason });
}
