import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { readSettings } from '../../lib/app.ts';
import { ofType, postlaneFunctions, referencedId, resourcesOf, synthesize, type Resource, type Resources } from './template.ts';

const DOMAIN = {
  'postlane:domainName': 'api.example.com',
  'postlane:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
  'postlane:hostedZoneName': 'example.com',
  'postlane:certificateArn': 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
};

/** Same as the regional-stacks test: CloudFormation refuses stacks over 500 resources. */
const RESOURCE_BUDGET = 400;

const DOMAIN_TYPES = ['AWS::CertificateManager::Certificate', 'AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping', 'AWS::Route53::RecordSet'];

function publicBaseUrls(resources: Resources): unknown[] {
  return [...new Set(postlaneFunctions(resources).map(([, fn]) => fn.Properties.Environment?.Variables?.PUBLIC_BASE_URL))];
}

describe('without a custom domain', () => {
  const { stacks } = synthesize();

  it.each(stacks.map(({ stack, template }) => [stack.stackName, resourcesOf(template)] as const))(
    "%s has no certificate, domain, mapping or record, and PUBLIC_BASE_URL is its distribution's own address",
    (_name, resources) => {
      for (const type of DOMAIN_TYPES) expect(ofType(resources, type), type).toEqual([]);
      const [distribution, ...others] = ofType(resources, 'AWS::CloudFront::Distribution');
      expect(others).toEqual([]);
      expect(distribution![1].Properties.DistributionConfig.Aliases).toBeUndefined();
      const urls = publicBaseUrls(resources);
      expect(urls.length).toBeGreaterThan(40);
      for (const url of urls) expect(url).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution![0], 'DomainName'] }]] });
    },
  );
});

describe('with postlane:domainName', () => {
  const { stacks } = synthesize(DOMAIN);

  describe.each(stacks.map(({ stack, template, parts }) => [stack.stackName, stack.region, resourcesOf(template), parts] as const))(
    '%s',
    (_name, region, resources, parts) => {
      const regionalName = `${region}.api.example.com`;

      const home = region === 'us-east-1';
      const originName = 'origin.api.example.com';
      const distributions = ofType(resources, 'AWS::CloudFront::Distribution');
      const withAlias = (name: string) => distributions.filter(([, distribution]) => distribution.Properties.DistributionConfig.Aliases?.includes(name));

      it('serves its regional name from its own distribution, with the us-east-1 certificate and TLS 1.2 or later, forwarding to its own API', () => {
        const [[, regional]] = withAlias(regionalName) as [[string, Resource]];
        const config = regional.Properties.DistributionConfig;
        expect(config.Aliases).toEqual([regionalName]);
        expect(config.ViewerCertificate).toEqual({
          AcmCertificateArn: DOMAIN['postlane:certificateArn'],
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        });
        const apiOrigin = config.Origins.find((origin: any) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);
        expect(JSON.stringify(apiOrigin.DomainName)).toMatch(/"Ref":"ApiHttp\w+"\},".execute-api\./);
      });

      it(
        home
          ? 'serves the shared name from a second distribution whose API is the latency-routed origin name'
          : 'leaves the shared name to the first region’s stack',
        () => {
          expect(distributions).toHaveLength(home ? 2 : 1);
          const shared = withAlias('api.example.com');
          expect(shared).toHaveLength(home ? 1 : 0);
          if (!home) return;
          const config = shared[0]![1].Properties.DistributionConfig;
          expect(config.Aliases).toEqual(['api.example.com']);
          expect(config.ViewerCertificate.AcmCertificateArn).toEqual(DOMAIN['postlane:certificateArn']);
          const apiOrigin = config.Origins.find((origin: any) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);
          expect(apiOrigin.DomainName).toBe(originName);
        },
      );

      it('maps the origin name to the stack’s own API, with a regional certificate validated in the hosted zone', () => {
        const [apiId] = ofType(resources, 'AWS::ApiGatewayV2::Api').map(([id]) => id);
        const certificates = ofType(resources, 'AWS::CertificateManager::Certificate');
        expect(certificates.map(([, certificate]) => certificate.Properties)).toEqual([
          expect.objectContaining({
            DomainName: originName,
            ValidationMethod: 'DNS',
            DomainValidationOptions: [{ DomainName: originName, HostedZoneId: DOMAIN['postlane:hostedZoneId'] }],
          }),
        ]);
        const domains = ofType(resources, 'AWS::ApiGatewayV2::DomainName');
        expect(domains.map(([, domain]) => domain.Properties.DomainName)).toEqual([originName]);
        expect(domains[0]![1].Properties.DomainNameConfigurations[0].CertificateArn).toEqual({ Ref: certificates[0]![0] });
        const mappings = ofType(resources, 'AWS::ApiGatewayV2::ApiMapping').map(([, mapping]) => mapping.Properties);
        expect(mappings.map((mapping) => [referencedId(mapping.ApiId), referencedId(mapping.DomainName)])).toEqual([[apiId, domains[0]![0]]]);
      });

      it('adds its region to the latency-routed origin name, and aliases its names (IPv4 and IPv6) to its distributions', () => {
        const records = ofType(resources, 'AWS::Route53::RecordSet').map(([, record]) => record.Properties);
        const named = (name: string) => records.filter((record) => record.Name === `${name}.`);

        expect(records).toHaveLength(home ? 5 : 3);
        expect(named(originName)).toEqual([
          expect.objectContaining({
            Type: 'A',
            HostedZoneId: DOMAIN['postlane:hostedZoneId'],
            Region: region,
            SetIdentifier: region,
            AliasTarget: expect.any(Object),
          }),
        ]);
        for (const name of home ? [regionalName, 'api.example.com'] : [regionalName]) {
          const [[distributionId]] = withAlias(name) as [[string, Resource]];
          expect(
            named(name)
              .map((record) => record.Type)
              .sort(),
            name,
          ).toEqual(['A', 'AAAA']);
          for (const record of named(name)) {
            expect(record).not.toHaveProperty('Region');
            expect(record.AliasTarget).toEqual({ DNSName: { 'Fn::GetAtt': [distributionId, 'DomainName'] }, HostedZoneId: expect.anything() });
          }
        }
      });

      it('builds links on the shared name, which reaches the replicated table in any region', () => {
        expect(publicBaseUrls(resources)).toEqual(['https://api.example.com']);
      });

      it('stays within the resource budget, in the parent and in each nested stack', () => {
        for (const part of parts) expect(Object.keys(part.resources).length, part.path).toBeLessThan(RESOURCE_BUDGET);
      });
    },
  );
});

describe('with postlane:domainName and independent regions', () => {
  const { stacks } = synthesize({ ...DOMAIN, 'postlane:independentRegions': 'true' });

  it.each(stacks.map(({ stack, template }) => [stack.stackName, stack.region, resourcesOf(template)] as const))(
    '%s builds links on its regional name: no other region has its data or signing key',
    (_name, region, resources) => {
      expect(publicBaseUrls(resources)).toEqual([`https://${region}.api.example.com`]);
    },
  );
});

describe('postlane:domainName context', () => {
  const settingsFor = (context: Record<string, string>) => readSettings(new App({ context }).node);

  it('is read with its zone, normalised', () => {
    expect(settingsFor({ ...DOMAIN, 'postlane:domainName': 'API.Example.com.' }).customDomain).toEqual({
      domainName: 'api.example.com',
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
      certificateArn: DOMAIN['postlane:certificateArn'],
    });
    expect(settingsFor({}).customDomain).toBeUndefined();
  });

  it('is refused without its zone or certificate, outside its zone, or when not a domain name', () => {
    expect(() => settingsFor({ 'postlane:domainName': 'api.example.com' })).toThrow(/give all four or none/);
    const { 'postlane:certificateArn': _certificate, ...withoutCertificate } = DOMAIN;
    expect(() => settingsFor(withoutCertificate)).toThrow(/give all four or none/);
    expect(() => settingsFor({ 'postlane:certificateArn': DOMAIN['postlane:certificateArn'] })).toThrow(/give all four or none/);
    expect(() => settingsFor({ ...DOMAIN, 'postlane:hostedZoneName': 'example.org' })).toThrow(/is not in the hosted zone example.org/);
    expect(() => settingsFor({ ...DOMAIN, 'postlane:domainName': 'api_example.com' })).toThrow(/is not a domain name/);
  });

  it('takes a certificate of us-east-1 only, the one region CloudFront reads certificates from', () => {
    const inIreland = DOMAIN['postlane:certificateArn'].replace('us-east-1', 'eu-west-1');
    expect(() => settingsFor({ ...DOMAIN, 'postlane:certificateArn': inIreland })).toThrow(/ACM certificate in us-east-1/);
    expect(() => settingsFor({ ...DOMAIN, 'postlane:certificateArn': 'not-an-arn' })).toThrow(/ACM certificate in us-east-1/);
  });
});
