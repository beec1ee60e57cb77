/**
 * The dashboard and the API on one origin (lib/dashboard-site.ts): each
 * regional stack's distribution serves /app from a private bucket with the
 * local server's headers and cache rules, and sends everything else to the API
 * uncached; the dashboard is built once per synth for both regions.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { ROUTES } from '#functions/routes.ts';
import { edgeRoutes } from '#shared/platform/http/routes.ts';
import { ORIGIN_VERIFY_HEADER } from '#shared/platform/http/caller-address.ts';
import { ASSET_CACHE_CONTROL, DASHBOARD_SECURITY_HEADERS, INDEX_CACHE_CONTROL } from '../../dashboard/serving.ts';
import { isDashboardPath, serveDashboard } from '../../dev/local/dashboard.ts';
import { readSettings } from '../../lib/app.ts';
import { DashboardSite, SPA_ROUTING_CODE } from '../../lib/dashboard-site.ts';
import { ofType, pair, referencedId, resourcesOf, rolePermissionsOf, synthesize, type Resource, type Resources } from './template.ts';

const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/postlane/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

const only = (resources: Resources, type: string): [string, Resource] => {
  const found = ofType(resources, type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};

/**
 * Every distribution of the stack sends its API origin the secret header, and
 * every function behind an API route holds the same value: both a dynamic
 * reference to the stack's one generated secret, so no template holds the value.
 */
function expectOriginSecret(resources: Resources): void {
  const secrets = ofType(resources, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('OriginVerifySecret'));
  expect(secrets).toHaveLength(1);
  const [secretId, secret] = secrets[0]!;
  expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
  const reference = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] };
  const distributions = ofType(resources, 'AWS::CloudFront::Distribution');
  expect(distributions.length).toBeGreaterThan(0);
  for (const [id, distribution] of distributions) {
    const config = distribution.Properties.DistributionConfig;
    const api = config.Origins.find((origin: { Id: string }) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);
    expect(api.OriginCustomHeaders, id).toEqual([{ HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: reference }]);
  }
  const apiFunctions = new Set(
    ofType(resources, 'AWS::ApiGatewayV2::Integration').map(([, integration]) => referencedId(integration.Properties.IntegrationUri)),
  );
  expect(apiFunctions.size).toBeGreaterThan(10);
  for (const id of apiFunctions) expect(resources[id]!.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET, id).toEqual(reference);
}

/** The CloudFront Function as CloudFront runs it: `handler(event)` of the code the template deploys. */
function routingOf(code: string): (uri: string) => { uri?: string; statusCode?: number; headers?: Record<string, { value: string }> } {
  const handler = new Function(`${code}\nreturn handler;`)() as (event: unknown) => any;
  return (uri) => handler({ request: { method: 'GET', uri, querystring: {}, headers: {}, cookies: {} } });
}

describe('each regional stack’s distribution', () => {
  const { stacks } = synthesize();

  describe.each(stacks.map(({ stack, template }) => [stack.stackName, resourcesOf(template), stack] as const))('%s', (_name, resources, stack) => {
    const [distributionId, distribution] = only(resources, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    const originOf = (behavior: { TargetOriginId: string }) => config.Origins.find((origin: { Id: string }) => origin.Id === behavior.TargetOriginId);
    const dashboardBucketId = ofType(resources, 'AWS::S3::Bucket').find(([id]) => id.startsWith('DashboardFiles'))![0];

    it('sends everything but the dashboard to the API: every method, nothing cached, the viewer’s headers, cookies and query but Host, HTTPS only', () => {
      const api = config.DefaultCacheBehavior;
      expect(api).toMatchObject({
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
        OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
        ViewerProtocolPolicy: 'redirect-to-https',
      });
      expect(originOf(api)).toEqual({
        Id: expect.any(String),
        DomainName: {
          'Fn::Join': ['', [{ Ref: expect.stringMatching(/^ApiHttp/) }, expect.stringMatching(/^\.execute-api\.[a-z0-9-]+\.$/), { Ref: 'AWS::URLSuffix' }]],
        },
        CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
        OriginCustomHeaders: [{ HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: expect.anything() }],
      });
    });

    it('proves to the API’s functions that a request came through it: a secret header, the functions’ ORIGIN_VERIFY_SECRET, both from the stack’s generated secret', () => {
      expectOriginSecret(resources);
    });

    it('serves /app and /app/* from the bucket through Origin Access Control, with the routing function, the dashboard’s cache policy and headers', () => {
      expect(config.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern)).toEqual(['/app', '/app/*']);
      const [cachePolicyId, cachePolicy] = only(resources, 'AWS::CloudFront::CachePolicy');
      const [headersId] = only(resources, 'AWS::CloudFront::ResponseHeadersPolicy');
      const [functionId] = only(resources, 'AWS::CloudFront::Function');
      const [oacId] = only(resources, 'AWS::CloudFront::OriginAccessControl');
      for (const behavior of config.CacheBehaviors) {
        expect(behavior).toMatchObject({
          AllowedMethods: ['GET', 'HEAD'],
          CachePolicyId: { Ref: cachePolicyId },
          ResponseHeadersPolicyId: { Ref: headersId },
          FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } }],
          ViewerProtocolPolicy: 'redirect-to-https',
        });
        expect(originOf(behavior)).toMatchObject({
          DomainName: { 'Fn::GetAtt': [dashboardBucketId, 'RegionalDomainName'] },
          OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        });
        expect(originOf(behavior)).not.toHaveProperty('OriginPath');
      }
      // What each file says goes: index.html (no-store) is never kept, the hashed assets up to a year.
      expect(cachePolicy.Properties.CachePolicyConfig).toMatchObject({ MinTTL: 0, DefaultTTL: 0, MaxTTL: 31_536_000 });
      expect(cachePolicy.Properties.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
        CookiesConfig: { CookieBehavior: 'none' },
        HeadersConfig: { HeaderBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
      });
    });

    it('leaves every route of the API to the API: none is under /app', () => {
      const routes = edgeRoutes(ROUTES);
      expect(routes.length).toBeGreaterThan(50);
      expect(routes.filter((route) => isDashboardPath(route.path)).map((route) => `${route.method} ${route.path}`)).toEqual([]);
    });

    it('keeps the bucket private: public access blocked, HTTPS only, read by this distribution alone', () => {
      const bucket = resources[dashboardBucketId]!;
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      const policy = ofType(resources, 'AWS::S3::BucketPolicy').find(([, one]) => one.Properties.Bucket.Ref === dashboardBucketId)![1];
      const allows = policy.Properties.PolicyDocument.Statement.filter((statement: { Effect: string }) => statement.Effect === 'Allow');
      expect(allows).toEqual([
        {
          Action: 's3:GetObject',
          Effect: 'Allow',
          Principal: { Service: 'cloudfront.amazonaws.com' },
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [dashboardBucketId, 'Arn'] }, '/*']] },
          Condition: {
            StringEquals: {
              'AWS:SourceArn': {
                'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: distributionId }]],
              },
            },
          },
        },
      ]);
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    });

    it('copies the hashed assets with a year’s cache, then index.html with none, keeping old assets for pages still open', () => {
      const deployments = ofType(resources, 'Custom::CDKBucketDeployment');
      const assets = deployments.find(([id]) => id.startsWith('DashboardAssets'))!;
      const index = deployments.find(([id]) => id.startsWith('DashboardIndex'))!;
      expect(deployments).toHaveLength(2);
      expect(assets[1].Properties).toMatchObject({
        DestinationBucketName: { Ref: dashboardBucketId },
        DestinationBucketKeyPrefix: 'app/',
        Exclude: ['index.html'],
        Prune: false,
        SystemMetadata: { 'cache-control': ASSET_CACHE_CONTROL },
      });
      expect(index[1].Properties).toMatchObject({
        DestinationBucketKeyPrefix: 'app/',
        Exclude: ['*'],
        Include: ['index.html'],
        SystemMetadata: { 'cache-control': INDEX_CACHE_CONTROL },
      });
      expect(index[1].Properties.SourceObjectKeys).toEqual(assets[1].Properties.SourceObjectKeys);
      expect(JSON.stringify(index[1])).toContain(assets[0]);
    });

    it('copies them with a role that may do just that: read the built asset, list the bucket, write and delete under app/', () => {
      const [roleId] = ofType(resources, 'AWS::IAM::Role').find(([id]) => id.startsWith('DashboardDeploymentRole'))!;
      const [, handler] = ofType(resources, 'AWS::Lambda::Function').find(([id]) => id.startsWith('CustomCDKBucketDeployment'))!;
      expect(referencedId(handler.Properties.Role)).toBe(roleId);
      const bucketArn = { 'Fn::GetAtt': [dashboardBucketId, 'Arn'] };
      expect([...rolePermissionsOf(stack, resources, roleId)].sort()).toEqual(
        [
          pair(stack, 's3:DeleteObject', { 'Fn::Join': ['', [bucketArn, '/app/*']] }),
          pair(stack, 's3:ListBucket', bucketArn),
          pair(stack, 's3:PutObject', { 'Fn::Join': ['', [bucketArn, '/app/*']] }),
        ]
          .concat([...rolePermissionsOf(stack, resources, roleId)].filter((entry) => entry.startsWith('s3:GetObject ') && entry.includes('cdk-')))
          .sort(),
      );
      expect([...rolePermissionsOf(stack, resources, roleId)].filter((entry) => entry.startsWith('s3:GetObject '))).toHaveLength(1);
    });

    it('sends the CSP and security headers the local server sends', async () => {
      const [, headers] = only(resources, 'AWS::CloudFront::ResponseHeadersPolicy');
      const policy = headers.Properties.ResponseHeadersPolicyConfig;
      const local = (await serveDashboard('/app/', 'GET', join(tmpdir(), 'postlane-no-dashboard-here'))).headers;

      expect(policy.SecurityHeadersConfig.ContentSecurityPolicy).toEqual({ ContentSecurityPolicy: local['content-security-policy'], Override: true });
      expect(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy).toBe(DASHBOARD_SECURITY_HEADERS['content-security-policy']);
      expect(local['x-content-type-options']).toBe('nosniff');
      expect(policy.SecurityHeadersConfig.ContentTypeOptions).toEqual({ Override: true });
      expect(policy.SecurityHeadersConfig.ReferrerPolicy).toEqual({ ReferrerPolicy: local['referrer-policy'], Override: true });
      expect(policy.CustomHeadersConfig.Items).toEqual([{ Header: 'Cross-Origin-Opener-Policy', Value: local['cross-origin-opener-policy'], Override: true }]);
      expect(policy.SecurityHeadersConfig.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31_536_000, Override: true });
    });

    it('answers client routes with index.html and /app with a redirect, as the local server does; assets pass as they are', () => {
      const [, fn] = only(resources, 'AWS::CloudFront::Function');
      expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
      expect(fn.Properties.FunctionCode).toBe(SPA_ROUTING_CODE);
      const route = routingOf(fn.Properties.FunctionCode);

      for (const uri of ['/app/', '/app/emails', '/app/emails/em_123', '/app/no/such/page', '/app/index.html', '/app/assetsx/y.js'])
        expect(route(uri), uri).toMatchObject({ uri: '/app/index.html' });
      expect(route('/app/assets/main-3FJ2KQAB.js')).toMatchObject({ uri: '/app/assets/main-3FJ2KQAB.js' });
      expect(route('/app')).toMatchObject({ statusCode: 308, headers: { location: { value: '/app/' } } });
    });

    it("is the functions' PUBLIC_BASE_URL, has no web ACL unless one is given, and accepts TLS 1.2 at least where it chooses", () => {
      const urls = new Set(
        ofType(resources, 'AWS::Lambda::Function')
          .map(([, fn]) => fn.Properties.Environment?.Variables?.PUBLIC_BASE_URL)
          .filter(Boolean)
          .map((url) => JSON.stringify(url)),
      );
      expect([...urls]).toEqual([JSON.stringify({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] })]);
      expect(config).not.toHaveProperty('WebACLId');
      expect(config.HttpVersion).toBe('http2and3');
    });
  });
});

describe('with postlane:webAclArn', () => {
  // With a custom domain, for the first region's second distribution (the shared name's).
  const { stacks } = synthesize({
    'postlane:webAclArn': WEB_ACL,
    'postlane:domainName': 'api.example.com',
    'postlane:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
    'postlane:hostedZoneName': 'example.com',
    'postlane:certificateArn': 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
  });

  it.each(stacks.map(({ stack, template }) => [stack.stackName, resourcesOf(template)] as const))(
    '%s attaches the web ACL to each of its distributions',
    (name, resources) => {
      const distributions = ofType(resources, 'AWS::CloudFront::Distribution');
      expect(distributions).toHaveLength(name.endsWith('us-east-1') ? 2 : 1);
      for (const [, distribution] of distributions) expect(distribution.Properties.DistributionConfig.WebACLId).toBe(WEB_ACL);
    },
  );

  it.each(stacks.map(({ stack, template }) => [stack.stackName, resourcesOf(template)] as const))(
    '%s sends the secret origin header from each of its distributions, the shared name’s too',
    (_name, resources) => expectOriginSecret(resources),
  );

  it('is refused unless it is a CLOUDFRONT-scope web ACL', () => {
    const settingsFor = (context: Record<string, string>) => readSettings(new App({ context }).node);
    expect(settingsFor({ 'postlane:webAclArn': WEB_ACL }).webAclArn).toBe(WEB_ACL);
    for (const wrong of [WEB_ACL.replace('global/', 'regional/'), WEB_ACL.replace('us-east-1', 'eu-west-1'), 'my-acl'])
      expect(() => settingsFor({ 'postlane:webAclArn': wrong }), wrong).toThrow(/CLOUDFRONT-scope web ACL/);
  });
});

describe('the dashboard asset', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'postlane-site-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('is built once per synth for every stack, from dashboard/build.ts: index.html and the hashed assets', () => {
    const app = new App({ outdir });
    for (const region of ['us-east-1', 'eu-west-1']) {
      const stack = new Stack(app, `Site-${region}`, { env: { region } });
      new DashboardSite(stack, 'Dashboard', { namePrefix: 'postlane-test', originSecret: new Secret(stack, 'OriginSecret') });
    }
    const assembly = app.synth();

    const keys = assembly.stacks.map((stack) =>
      Object.values(stack.template.Resources as Resources)
        .filter((resource) => resource.Type === 'Custom::CDKBucketDeployment')
        .map((resource) => resource.Properties.SourceObjectKeys[0] as string),
    );
    const [key] = keys.flat();
    expect(keys.flat()).toEqual([key, key, key, key]);
    const staged = readdirSync(outdir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name.startsWith('asset.') && readdirSync(join(outdir, entry.name)).includes('index.html'))
      .map((entry) => entry.name);
    expect(staged).toHaveLength(1);
    const files = readdirSync(join(outdir, staged[0]!, 'assets'));
    const index = readFileSync(join(outdir, staged[0]!, 'index.html'), 'utf8');
    const entry = index.match(/<script type="module" src="\/app\/assets\/([^"]+)"><\/script>/)![1]!;
    expect(files).toContain(entry);
    expect(files.some((file) => file.endsWith('.css'))).toBe(true);
  }, 120_000);
});
