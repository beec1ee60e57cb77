import { CfnOutput, Stack } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type IHttpApi, type IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget, type IHostedZone } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

/** The `postlane:domainName`, `postlane:hostedZoneId` and `postlane:hostedZoneName` context. */
export interface CustomDomainSettings {
  /** The base address clients use: `api.example.com`. */
  readonly domainName: string;
  /** The Route 53 public hosted zone holding it; given rather than looked up, so synth needs no AWS credentials. */
  readonly hostedZoneId: string;
  readonly hostedZoneName: string;
}

/** `us-east-1.api.example.com`: the name that always reaches one region. */
export function regionalDomainName(domainName: string, region: string): string {
  return `${region}.${domainName}`;
}

export interface CustomDomainProps {
  readonly settings: CustomDomainSettings;
  readonly httpApi: IHttpApi;
  /** The API's stage the names map to (the API has no implicit one: its stage carries throttling and access logs). */
  readonly stage: IHttpStage;
}

/**
 * The API under a custom domain in this region: `<domain>` as a latency-based
 * record that every regional stack adds its region to, so Route 53 answers each
 * client with the nearest region; and `<region>.<domain>` for clients that must
 * stay in one region. One DNS-validated certificate covers both names.
 *
 * Latency records route by where the client's resolver is, not by health: a
 * region that is down keeps its share until its stack or record is removed
 * (add a Route 53 health check per record for automatic failover).
 */
export class CustomDomain extends Construct {
  /** `https://api.example.com` */
  readonly url: string;
  /** `https://us-east-1.api.example.com` */
  readonly regionalUrl: string;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    const { domainName, hostedZoneId, hostedZoneName } = props.settings;
    const region = Stack.of(this).region;
    const regionalName = regionalDomainName(domainName, region);
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId, zoneName: hostedZoneName });

    // A regional API's certificate must live in the API's region: one per stack.
    const certificate = new Certificate(this, 'Certificate', {
      domainName,
      subjectAlternativeNames: [regionalName],
      validation: CertificateValidation.fromDns(zone),
    });
    this.addName('Shared', domainName, { certificate, zone, httpApi: props.httpApi, stage: props.stage, latencyRegion: region });
    this.addName('Regional', regionalName, { certificate, zone, httpApi: props.httpApi, stage: props.stage });

    this.url = `https://${domainName}`;
    this.regionalUrl = `https://${regionalName}`;
    new CfnOutput(scope, 'CustomDomainUrl', { value: this.url, description: 'The API at the nearest region' });
    new CfnOutput(scope, 'RegionalDomainUrl', { value: this.regionalUrl, description: 'The API in this region only' });
  }

  private addName(
    id: string,
    name: string,
    options: { certificate: Certificate; zone: IHostedZone; httpApi: IHttpApi; stage: IHttpStage; latencyRegion?: string },
  ): void {
    const domain = new DomainName(this, `${id}Name`, { domainName: name, certificate: options.certificate });
    new ApiMapping(this, `${id}Mapping`, { api: options.httpApi, stage: options.stage, domainName: domain });
    new ARecord(this, `${id}Record`, {
      zone: options.zone,
      recordName: name,
      target: RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(domain.regionalDomainName, domain.regionalHostedZoneId)),
      ...(options.latencyRegion ? { region: options.latencyRegion, setIdentifier: options.latencyRegion } : {}),
    });
  }
}
