import { fileURLToPath } from 'node:url';
import { AssetHashType, type CfnElement, CfnOutput, Duration, DockerImage, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { Effect, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '#shared/platform/http/caller-address.ts';
import { ASSET_CACHE_CONTROL, DASHBOARD_ASSETS, DASHBOARD_PREFIX, DASHBOARD_SECURITY_HEADERS, INDEX_CACHE_CONTROL } from '../dashboard/serving.ts';
import { buildSynchronously } from './function-code.ts';
import { acknowledgeFindings } from './nag.ts';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the files sit in the bucket: under the path they are served at, so the distribution needs no origin path. */
const KEY_PREFIX = `${DASHBOARD_PREFIX.slice(1)}/`;

/**
 * The dashboard's files as an asset (dashboard/build.ts, in the synth's builder
 * thread beside the functions' bundles), hashed by its output. Both regional
 * stacks ask with the same options, so CDK builds it once per synth and stages
 * one asset for both; a synth that skips bundling builds nothing.
 */
function dashboardAsset(scope: Construct): Asset {
  return new Asset(scope, 'Build', {
    path: PROJECT_ROOT,
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      command: ['node', '--import', 'tsx', 'bin/bundle-dashboard.ts', '/asset-output'],
      local: {
        tryBundle(outputDir: string): boolean {
          buildSynchronously({ job: 'dashboard', directory: outputDir }, 'the dashboard');
          return true;
        },
      },
    },
  });
}

/**
 * The viewer-request function of the dashboard's behaviours (CloudFront
 * Functions, JavaScript 2.0), as the local server answers (dev/local/dashboard.ts):
 * `/app` redirects to `/app/`, a file under `/app/assets/` is fetched as it is,
 * and any other path is a client route, answered with index.html. Only these
 * behaviours run it: the API's own 404s stay the API's.
 */
export const SPA_ROUTING_CODE = `function handler(event) {
  var request = event.request;
  if (request.uri === '${DASHBOARD_PREFIX}') {
    return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '${DASHBOARD_PREFIX}/' }, 'cache-control': { value: 'no-store' } } };
  }
  if (request.uri.indexOf('${DASHBOARD_PREFIX}/${DASHBOARD_ASSETS}/') !== 0) request.uri = '${DASHBOARD_PREFIX}/index.html';
  return request;
}`;

export interface DashboardSiteProps {
  /** `postlane-<stage>`: the bucket is `<prefix>-app-<account>-<region>`. */
  readonly namePrefix: string;
  /**
   * What each distribution sends the API in ORIGIN_VERIFY_HEADER, which the
   * functions hold as ORIGIN_VERIFY_SECRET: their proof that a request's
   * CloudFront-Viewer-Address is CloudFront's (shared/platform/http/caller-address.ts).
   */
  readonly originSecret: ISecret;
}

/** What a distribution of `DashboardSite.distribution` serves besides the files. */
export interface SiteOptions {
  /** The host name of the API origin: the stage's execute-api name, or a latency-routed name of the custom domain (lib/custom-domain.ts). */
  readonly apiDomainName: string;
  /** Alternate names, with a us-east-1 certificate covering them; none: the distribution's own `*.cloudfront.net` name. */
  readonly domain?: { readonly names: readonly string[]; readonly certificate: ICertificate };
  /** A CLOUDFRONT-scope AWS WAF web ACL (`postlane:webAclArn`). */
  readonly webAclArn?: string;
}

/**
 * The dashboard and the API on one origin: this region's private bucket of the
 * dashboard's files, and the distributions that serve them at `/app/` with the
 * API behind everything else (docs/deploying.md, "What gets deployed").
 * - `/app` and `/app/*`: the bucket through Origin Access Control (only the
 *   distributions of this construct may read it), a cache policy that follows
 *   each object's Cache-Control (hashed assets a year, index.html never), the
 *   dashboard's security headers and CSP from dashboard/serving.ts, the SPA
 *   routing function.
 * - everything else (`/api/*`, `/f/*`, `/unsubscribe/*`, `/preferences/*`, `/confirm/*`, `/docs`, `/openapi.json`):
 *   the API, never cached, every method, with the viewer's headers, cookies
 *   and query string except Host (API Gateway answers only its own names),
 *   and the stack's secret origin header.
 * - HTTPS only (HTTP redirects), TLS 1.2 or later under a custom domain.
 */
export class DashboardSite extends Construct {
  readonly bucket: Bucket;
  readonly cachePolicy: CachePolicy;
  readonly headersPolicy: ResponseHeadersPolicy;
  readonly routing: CloudFrontFunction;
  private readonly originSecret: ISecret;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    this.originSecret = props.originSecret;
    const { account, region } = Stack.of(this);
    this.bucket = new Bucket(this, 'Files', {
      // Like the attachments bucket's, with the stage in it; `app` keeps the longest stage and region under S3's 63 characters.
      bucketName: `${props.namePrefix}-app-${account}-${region}`,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Emptied by the deployments below when the stack is deleted; the files are rebuilt from the repository at any deploy.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeFindings(this.bucket, {
      'AwsSolutions-S1':
        'Holds only the built dashboard, read by CloudFront alone through Origin Access Control and written only by the deployment; nothing in it is private to anyone, so server access logs would record nothing worth a bucket of their own',
    });

    const asset = dashboardAsset(this);
    const source = Source.bucket(asset.bucket, asset.s3ObjectKey);
    const role = this.deploymentRole(asset);
    // Hashed names never change content: kept across deploys (no prune), so a page
    // loaded before a deploy still finds the chunks of its version when it opens another page.
    const assets = new BucketDeployment(this, 'Assets', {
      sources: [source],
      destinationBucket: this.bucket,
      destinationKeyPrefix: KEY_PREFIX,
      exclude: ['index.html'],
      cacheControl: [CacheControl.fromString(ASSET_CACHE_CONTROL)],
      prune: false,
      // Deleting either deployment empties the prefix (the role cannot read the bucket's
      // ownership tags, which would stop it), so that the stack's deletion can delete the bucket.
      retainOnDelete: false,
      outputObjectKeys: false,
      role,
    });
    // After the assets: a new index.html never names a chunk the bucket does not hold yet.
    const index = new BucketDeployment(this, 'Index', {
      sources: [source],
      destinationBucket: this.bucket,
      destinationKeyPrefix: KEY_PREFIX,
      exclude: ['*'],
      include: ['index.html'],
      cacheControl: [CacheControl.fromString(INDEX_CACHE_CONTROL)],
      prune: false,
      retainOnDelete: false,
      outputObjectKeys: false,
      role,
    });
    index.node.addDependency(assets);
    acknowledgeDeploymentHandler(this);

    this.cachePolicy = new CachePolicy(this, 'CachePolicy', {
      comment: 'Postlane dashboard: as each file says (hashed assets a year, index.html never); no cookie, header or query in the key',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(365),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const { 'cross-origin-opener-policy': openerPolicy, 'content-security-policy': csp } = DASHBOARD_SECURITY_HEADERS;
    this.headersPolicy = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Postlane dashboard: the CSP and security headers of dashboard/serving.ts',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        // What `frame-ancestors 'none'` says, for browsers that read only this.
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: false, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cross-Origin-Opener-Policy', value: openerPolicy, override: true }] },
    });
    this.routing = new CloudFrontFunction(this, 'Routing', {
      comment: 'Postlane dashboard: client routes to index.html',
      code: FunctionCode.fromInline(SPA_ROUTING_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });
  }

  /**
   * The role of CDK's deployment function, with exactly what it does (no wildcard
   * action, as every role of the stack): read the built asset, list the bucket
   * (`aws s3 sync`), write and delete under `app/`. Passed without policy updates,
   * so that BucketDeployment's own grants (`s3:GetObject*`, `s3:List*`, …) add nothing.
   */
  private deploymentRole(asset: Asset) {
    const role = new Role(this, 'DeploymentRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: "Postlane: CDK's BucketDeployment function, copying the dashboard's files",
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
    role.addToPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:GetObject'], resources: [asset.bucket.arnForObjects(asset.s3ObjectKey)] }));
    role.addToPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
    role.addToPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:PutObject', 's3:DeleteObject'], resources: [this.bucket.arnForObjects(`${KEY_PREFIX}*`)] }),
    );
    acknowledgeFindings(role, {
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        "CDK's BucketDeployment function writes its own logs, which is what AWS's basic execution policy allows",
      [`AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/${KEY_PREFIX}*]`]:
        "The dashboard's files under app/, whose hashed names each build chooses",
    });
    return role.withoutPolicyUpdates();
  }

  /**
   * A distribution serving the files and the API on one origin; `id` in the
   * site's stack. Its address is the stack's public base URL (lib/regional-stack.ts).
   */
  distribution(id: string, options: SiteOptions): Distribution {
    const files: BehaviorOptions = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: this.cachePolicy,
      responseHeadersPolicy: this.headersPolicy,
      functionAssociations: [{ function: this.routing, eventType: FunctionEventType.VIEWER_REQUEST }],
      compress: true,
    };
    const distribution = new Distribution(Stack.of(this), id, {
      comment: `Postlane ${Stack.of(this).stackName}: dashboard and API`,
      defaultBehavior: {
        origin: new HttpOrigin(options.apiDomainName, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          // A dynamic reference, which CloudFormation resolves at deploy time: the value is in no template.
          customHeaders: { [ORIGIN_VERIFY_HEADER]: this.originSecret.secretValue.unsafeUnwrap() },
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      additionalBehaviors: { [DASHBOARD_PREFIX]: files, [`${DASHBOARD_PREFIX}/*`]: files },
      httpVersion: HttpVersion.HTTP2_AND_3,
      // Only with a certificate of its own: CloudFront's default one has a fixed policy.
      ...(options.domain
        ? { domainNames: [...options.domain.names], certificate: options.domain.certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 }
        : {}),
      ...(options.webAclArn ? { webAclId: options.webAclArn } : {}),
    });
    acknowledgeFindings(distribution, {
      'AwsSolutions-CFR1':
        'Open to every country: the API and the hosted pages serve recipients wherever they are; a web ACL (postlane:webAclArn) can restrict',
      'AwsSolutions-CFR3':
        "No CloudFront access logs: API Gateway's access log records every API request without its query or headers (lib/api.ts), while CloudFront's would keep each query string (addresses, signed link tokens) and need an ACL-enabled bucket; the dashboard's files are public code",
      ...(options.webAclArn
        ? {}
        : {
            'AwsSolutions-CFR2':
              'AWS WAF is an option (postlane:webAclArn, docs/deploying.md): a web ACL costs at least $5 a month plus $0.60 a million requests',
          }),
      ...(options.domain
        ? {}
        : {
            'AwsSolutions-CFR4':
              'Without postlane:domainName the distribution answers on its *.cloudfront.net name, whose certificate CloudFront serves with its default policy (TLSv1 and later); with a custom domain the policy is TLSv1.2_2021',
          }),
    });
    new CfnOutput(distribution, 'Url', {
      value: `https://${distribution.distributionDomainName}`,
      description: 'The dashboard (/app/) and the API on one origin',
    });
    return distribution;
  }
}

/** The function CDK deploys the files with (a singleton of the stack, shared by both deployments). */
function acknowledgeDeploymentHandler(site: Construct): void {
  const handler = Stack.of(site).node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) throw new Error('no BucketDeployment handler in the stack');
  const why = "CDK's BucketDeployment function, which copies the dashboard's files at deploy time";
  acknowledgeFindings(handler, {
    'AwsSolutions-L1': `${why}: CDK chooses its runtime`,
    'Serverless-LambdaLatestVersion': `${why}: CDK chooses its runtime`,
    'Serverless-LambdaDLQ': `${why}: CloudFormation invokes it and reports its failure as the deployment's`,
    'Serverless-LambdaTracing': `${why}: nothing to trace`,
  });
}
