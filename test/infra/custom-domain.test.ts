import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { readSettings } from '../../lib/app.ts';
import { ofType, postlaneFunctions, referencedId, resourcesOf, synthesize, type Resources } from './template.ts';

const DOMAIN = {
  'postlane:domainName': 'api.example.com',
  'postlane:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
  'postlane:hostedZoneName': 'example.com',
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
    "%s has no certificate, domain, mapping or record, and PUBLIC_BASE_URL is the API's own endpoint",
    (_name, resources) => {
      for (const type of DOMAIN_TYPES) expect(ofType(resources, type), type).toEqual([]);
      const apiEndpoints = publicBaseUrls(resources).filter((value) => value !== undefined);
      expect(apiEndpoints.length).toBeGreaterThan(40);
      for (const value of apiEndpoints) expect(value).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiHttp/), 'ApiEndpoint'] });
    },
  );
});

describe('with postlane:domainName', () => {
  const { stacks } = synthesize(DOMAIN);

  describe.each(stacks.map(({ stack, template, parts }) => [stack.stackName, stack.region, resourcesOf(template), parts] as const))(
    '%s',
    (_name, region, resources, parts) => {
      const regionalName = `${region}.api.example.com`;

      it('has a certificate for the shared and the regional name, validated in the hosted zone', () => {
        expect(ofType(resources, 'AWS::CertificateManager::Certificate').map(([, certificate]) => certificate.Properties)).toEqual([
          expect.objectContaining({
            DomainName: 'api.example.com',
            SubjectAlternativeNames: [regionalName],
            ValidationMethod: 'DNS',
            DomainValidationOptions: expect.arrayContaining([{ DomainName: 'api.example.com', HostedZoneId: DOMAIN['postlane:hostedZoneId'] }]),
          }),
        ]);
      });

      it('maps both names to the stack’s own API with that certificate', () => {
        const [apiId] = ofType(resources, 'AWS::ApiGatewayV2::Api').map(([id]) => id);
        const [certificateId] = ofType(resources, 'AWS::CertificateManager::Certificate').map(([id]) => id);
        const domains = ofType(resources, 'AWS::ApiGatewayV2::DomainName');
        expect(domains.map(([, domain]) => domain.Properties.DomainName).sort()).toEqual(['api.example.com', regionalName]);
        for (const [, domain] of domains) expect(domain.Properties.DomainNameConfigurations[0].CertificateArn).toEqual({ Ref: certificateId });

        const mappings = ofType(resources, 'AWS::ApiGatewayV2::ApiMapping').map(([, mapping]) => mapping.Properties);
        expect(mappings.map((mapping) => referencedId(mapping.ApiId))).toEqual([apiId, apiId]);
        expect(mappings.map((mapping) => referencedId(mapping.DomainName)).sort()).toEqual(domains.map(([id]) => id).sort());
      });

      it('adds its region to the latency-routed shared name, and a plain alias for the regional name', () => {
        const records = ofType(resources, 'AWS::Route53::RecordSet').map(([, record]) => record.Properties);
        const shared = records.find((record) => record.Name === 'api.example.com.');
        const regional = records.find((record) => record.Name === `${regionalName}.`);

        expect(records).toHaveLength(2);
        expect(shared).toMatchObject({
          Type: 'A',
          HostedZoneId: DOMAIN['postlane:hostedZoneId'],
          Region: region,
          SetIdentifier: region,
          AliasTarget: expect.any(Object),
        });
        expect(regional).toMatchObject({ Type: 'A', AliasTarget: expect.any(Object) });
        expect(regional).not.toHaveProperty('Region');
        expect(regional).not.toHaveProperty('SetIdentifier');
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
    });
    expect(settingsFor({}).customDomain).toBeUndefined();
  });

  it('is refused without its zone, outside its zone, or when not a domain name', () => {
    expect(() => settingsFor({ 'postlane:domainName': 'api.example.com' })).toThrow(/give all three or none/);
    expect(() => settingsFor({ ...DOMAIN, 'postlane:hostedZoneName': 'example.org' })).toThrow(/is not in the hosted zone example.org/);
    expect(() => settingsFor({ ...DOMAIN, 'postlane:domainName': 'api_example.com' })).toThrow(/is not a domain name/);
  });
});
