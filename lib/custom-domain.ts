import { CfnOutput, Stack } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type IHttpApi, type IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { AaaaRecord, ARecord, HostedZone, RecordTarget, type IHostedZone } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties, CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

/** The `postlane:domainName`, `postlane:hostedZoneId`, `postlane:hostedZoneName` and `postlane:certificateArn` context. */
export interface CustomDomainSettings {
  /** The base address clients use: `api.example.com`. */
  readonly domainName: string;
  /** The Route 53 public hosted zone holding it; given rather than looked up, so synth needs no AWS credentials. */
  readonly hostedZoneId: string;
  readonly hostedZoneName: string;
  /**
   * An ACM certificate in us-east-1 for `<domain>` and `*.<domain>`, which
   * CloudFront serves for the distributions of every region: CloudFront takes
   * certificates from us-east-1 only, and a stack in another region cannot
   * create one there without cross-region custom resources.
   */
  readonly certificateArn: string;
}

/** `us-east-1.api.example.com`: the name that always reaches one region. */
export function regionalDomainName(domainName: string, region: string): string {
  return `${region}.${domainName}`;
}

/**
 * `origin.api.example.com`: the shared distribution's API origin, a latency
 * record per region to that region's API. Clients never use it.
 */
export function originDomainName(domainName: string): string {
  return `origin.${domainName}`;
}

export interface CustomDomainProps {
  readonly settings: CustomDomainSettings;
  readonly httpApi: IHttpApi;
  /** The API's stage the origin name maps to (the API has no implicit one: its stage carries throttling and access logs). */
  readonly stage: IHttpStage;
  /** This region's distribution, at `<region>.<domain>`. */
  readonly regionalSite: IDistribution;
  /** The distribution at `<domain>`, in the first region's stack only (a name can be on one distribution alone). */
  readonly sharedSite?: IDistribution;
}

/**
 * The custom domain's names in this region (docs/deploying.md, Custom domain):
 * - `<region>.<domain>`: this region's distribution, for clients and links that
 *   must stay in one region;
 * - `<domain>`: the shared distribution (the first region's stack adds the
 *   record), whose API origin is `origin.<domain>`: a latency-based record
 *   that every regional stack adds its API to, so CloudFront's edge reaches the
 *   nearest region, as clients reached it by DNS before there was a
 *   distribution. `origin.<domain>` is an API Gateway custom name in each
 *   region with a DNS-validated regional certificate.
 *
 * Latency records route by where the resolver is (here, CloudFront's edge),
 * not by health: a region that is down keeps its share until its stack or
 * record is removed (add a Route 53 health check per record for automatic failover).
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
    const originName = originDomainName(domainName);
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId, zoneName: hostedZoneName });

    // A regional API's certificate must live in the API's region: one per stack.
    const certificate = new Certificate(this, 'OriginCertificate', { domainName: originName, validation: CertificateValidation.fromDns(zone) });
    const origin = new DomainName(this, 'OriginName', { domainName: originName, certificate });
    new ApiMapping(this, 'OriginMapping', { api: props.httpApi, stage: props.stage, domainName: origin });
    new ARecord(this, 'OriginRecord', {
      zone,
      recordName: originName,
      target: RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(origin.regionalDomainName, origin.regionalHostedZoneId)),
      region,
      setIdentifier: region,
    });

    this.addSiteRecords('Regional', regionalName, zone, props.regionalSite);
    if (props.sharedSite) this.addSiteRecords('Shared', domainName, zone, props.sharedSite);

    this.url = `https://${domainName}`;
    this.regionalUrl = `https://${regionalName}`;
    new CfnOutput(scope, 'CustomDomainUrl', { value: this.url, description: 'The dashboard and the API, the API at the nearest region' });
    new CfnOutput(scope, 'RegionalDomainUrl', { value: this.regionalUrl, description: 'The dashboard and the API in this region only' });
  }

  private addSiteRecords(id: string, name: string, zone: IHostedZone, site: IDistribution): void {
    const target = RecordTarget.fromAlias(new CloudFrontTarget(site));
    new ARecord(this, `${id}Record`, { zone, recordName: name, target });
    new AaaaRecord(this, `${id}Ipv6Record`, { zone, recordName: name, target });
  }
}
