import type { App } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ApiProtection } from './api.ts';
import type { CustomDomainSettings } from './custom-domain.ts';
import { DEFAULT_RETENTION_DAYS, RegionalStack } from './regional-stack.ts';

export const DEFAULT_REGIONS = ['us-east-1', 'eu-west-1'];
export const DEFAULT_STAGE = 'prod';

/** `postlane-prod`: the start of every name a stage's resources take in the account, so stages never collide. */
export function namePrefixOf(stage: string): string {
  return `postlane-${stage}`;
}

export interface PostlaneSettings {
  /**
   * One deployment of several in an account and region (`prod`, `staging`):
   * in the stack, table, secret, queue and bucket names.
   */
  readonly stage: string;
  /** The first region holds the global table; the others get replicas of it. */
  readonly regions: readonly string[];
  /** One unreplicated table per region, so EU data never leaves the EU. */
  readonly independentRegions: boolean;
  /** Default `postlane-<stage>`. */
  readonly tableName: string;
  /**
   * The table and link-signing secret outlived an earlier deployment of this
   * stage (`cdk destroy` retains them): use them by name instead of creating
   * them, which CloudFormation would refuse as existing already.
   */
  readonly useRetainedData: boolean;
  /** Subscribed to each region's alarm topic. */
  readonly alarmEmail?: string;
  /** The API under a domain of the operator's, latency-routed across the regions. */
  readonly customDomain?: CustomDomainSettings;
  /** Stage throttling, access-log retention and CORS origins of each region's API. */
  readonly api: ApiProtection;
  /** Days email records, events and webhook deliveries are kept before DynamoDB's TTL removes them. */
  readonly retentionDays: number;
  /** The EventBridge bus (a name, or `default`) every event is also put on; none unless set. */
  readonly eventBus?: string;
  /** The sender of sign-in codes and team invitations (`postlane:mailFrom`); unset, none is mailed. */
  readonly mailFrom?: string;
  /** A CLOUDFRONT-scope AWS WAF web ACL attached to every distribution (`postlane:webAclArn`); none unless set. */
  readonly webAclArn?: string;
}

/**
 * Requests per second (and burst) the whole stage takes before API Gateway
 * answers 429: far below the account's 10,000, so one noisy client cannot
 * starve the other APIs of the account, and above what the plans' per-key
 * limits add up to for a few hundred busy keys.
 */
export const DEFAULT_THROTTLE = { rateLimit: 500, burstLimit: 1000 };
/** Anonymous routes (public forms, unsubscribe and preference pages) get much less: nothing rate-limits them per key. */
export const DEFAULT_PUBLIC_THROTTLE = { rateLimit: 20, burstLimit: 50 };
/** Access logs are kept as long as the functions' logs. */
export const DEFAULT_ACCESS_LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * Reads the `postlane:*` context. Values from cdk.json arrive typed; values from
 * `cdk -c key=value` arrive as strings, so both forms are accepted:
 * `-c postlane:regions=us-east-1,eu-central-1 -c postlane:independentRegions=true`.
 */
export function readSettings(node: Node): PostlaneSettings {
  const regions = list(node.tryGetContext('postlane:regions')) ?? DEFAULT_REGIONS;
  const invalid = regions.filter((region) => !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region));
  if (regions.length === 0 || invalid.length > 0 || new Set(regions).size !== regions.length) {
    throw new Error(`Context postlane:regions must list distinct AWS regions, got ${JSON.stringify(regions)}`);
  }
  const stage = text(node.tryGetContext('postlane:stage')) ?? DEFAULT_STAGE;
  // Lower case, as S3 bucket names must be; short, as they may not pass 63 characters.
  if (!/^[a-z](?:[a-z0-9-]{0,14}[a-z0-9])?$/.test(stage))
    throw new Error(`Context postlane:stage must be 1 to 16 lower-case letters, digits and inner hyphens, got ${stage}`);
  const tableName = String(node.tryGetContext('postlane:tableName') ?? namePrefixOf(stage));
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) throw new Error(`Context postlane:tableName is not a valid table name: ${tableName}`);
  const alarmEmail = text(node.tryGetContext('postlane:alarmEmail'));
  if (alarmEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(alarmEmail))
    throw new Error(`Context postlane:alarmEmail is not an email address: ${alarmEmail}`);
  const customDomain = readCustomDomain(node);
  const api: ApiProtection = {
    throttle: {
      rateLimit: count(node, 'throttleRate') ?? DEFAULT_THROTTLE.rateLimit,
      burstLimit: count(node, 'throttleBurst') ?? DEFAULT_THROTTLE.burstLimit,
    },
    publicThrottle: {
      rateLimit: count(node, 'publicThrottleRate') ?? DEFAULT_PUBLIC_THROTTLE.rateLimit,
      burstLimit: count(node, 'publicThrottleBurst') ?? DEFAULT_PUBLIC_THROTTLE.burstLimit,
    },
    accessLogRetention: retention(node) ?? DEFAULT_ACCESS_LOG_RETENTION,
    corsOrigins: corsOrigins(node),
  };
  const retentionDays = retentionDaysOf(node);
  const eventBus = text(node.tryGetContext('postlane:eventBus'));
  // EventBridge's rule for a bus name (ARNs of other accounts' buses are not accepted: the bus is this account's).
  if (eventBus !== undefined && !/^[A-Za-z0-9._-]{1,256}$/.test(eventBus))
    throw new Error(`Context postlane:eventBus must be an event bus name (letters, digits, . _ -) or default, got ${eventBus}`);
  const mailFrom = text(node.tryGetContext('postlane:mailFrom'));
  if (mailFrom !== undefined && !/^(?:[^<>\r\n]*<)?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/.test(mailFrom))
    throw new Error(`Context postlane:mailFrom must be an address or Name <address>, got ${mailFrom}`);
  const webAclArn = text(node.tryGetContext('postlane:webAclArn'));
  // CloudFront takes only global (CLOUDFRONT-scope) web ACLs, which live in us-east-1.
  if (webAclArn !== undefined && !/^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[A-Za-z0-9_-]{1,128}\/[0-9a-f-]{36}$/.test(webAclArn))
    throw new Error(
      `Context postlane:webAclArn must be the ARN of a CLOUDFRONT-scope web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>), got ${webAclArn}`,
    );
  return {
    stage,
    regions,
    independentRegions: flag(node.tryGetContext('postlane:independentRegions')),
    tableName,
    useRetainedData: flag(node.tryGetContext('postlane:useRetainedData')),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(customDomain ? { customDomain } : {}),
    api,
    retentionDays,
    ...(eventBus ? { eventBus } : {}),
    ...(mailFrom ? { mailFrom } : {}),
    ...(webAclArn ? { webAclArn } : {}),
  };
}

/** `postlane:retentionDays`: whole days from 1 to 3650, as RETENTION_DAYS accepts them (shared/platform/config.ts). */
function retentionDaysOf(node: Node): number {
  const value = text(node.tryGetContext('postlane:retentionDays'));
  if (value === undefined) return DEFAULT_RETENTION_DAYS;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 3650)
    throw new Error(`Context postlane:retentionDays must be a whole number of days from 1 to 3650, got ${value}`);
  return Number(value);
}

/** `postlane:<name>`, a whole number of at least 1 (requests per second, or a burst). */
function count(node: Node, name: string): number | undefined {
  const value = text(node.tryGetContext(`postlane:${name}`));
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new Error(`Context postlane:${name} must be a whole number of at least 1, got ${value}`);
  return Number(value);
}

/** `postlane:accessLogRetentionDays`: one of the periods CloudWatch Logs offers. */
function retention(node: Node): RetentionDays | undefined {
  const value = text(node.tryGetContext('postlane:accessLogRetentionDays'));
  if (value === undefined) return undefined;
  const days = Number(value);
  const offered = Object.values(RetentionDays).filter((item): item is RetentionDays => typeof item === 'number' && item !== RetentionDays.INFINITE);
  if (!offered.includes(days)) throw new Error(`Context postlane:accessLogRetentionDays must be one of ${offered.join(', ')}, got ${value}`);
  return days;
}

/** `postlane:corsOrigins`: `*` (the default) or origins, as a list or comma-separated; checked like the functions check CORS_ALLOWED_ORIGINS. */
function corsOrigins(node: Node): string {
  const origins = list(node.tryGetContext('postlane:corsOrigins')) ?? ['*'];
  const invalid = origins.filter((origin) => origin !== '*' && !/^https?:\/\/[^\s,/]+$/.test(origin));
  if (origins.length === 0 || invalid.length > 0)
    throw new Error(`Context postlane:corsOrigins must be * or origins such as https://www.example.com, got ${JSON.stringify(origins)}`);
  return origins.join(',');
}

/**
 * `postlane:domainName` with the public hosted zone it belongs to
 * (`postlane:hostedZoneId`, `postlane:hostedZoneName`) and the us-east-1
 * certificate of its distributions (`postlane:certificateArn`), or none of them.
 */
function readCustomDomain(node: Node): CustomDomainSettings | undefined {
  const [domainName, hostedZoneId, hostedZoneName] = ['domainName', 'hostedZoneId', 'hostedZoneName'].map((name) =>
    text(node.tryGetContext(`postlane:${name}`))
      ?.toLowerCase()
      .replace(/\.$/, ''),
  );
  const certificateArn = text(node.tryGetContext('postlane:certificateArn'));
  if (!domainName && !hostedZoneId && !hostedZoneName && !certificateArn) return undefined;
  if (!domainName || !hostedZoneId || !hostedZoneName || !certificateArn) {
    throw new Error(
      'Context postlane:domainName, postlane:hostedZoneId, postlane:hostedZoneName and postlane:certificateArn go together: give all four or none',
    );
  }
  // CloudFront takes certificates from us-east-1 only, whatever the stack's region (docs/deploying.md, Custom domain).
  if (!/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/.test(certificateArn))
    throw new Error(`Context postlane:certificateArn must be the ARN of an ACM certificate in us-east-1, got ${certificateArn}`);
  if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(domainName)) throw new Error(`Context postlane:domainName is not a domain name: ${domainName}`);
  if (domainName !== hostedZoneName && !domainName.endsWith(`.${hostedZoneName}`)) {
    throw new Error(`Context postlane:domainName ${domainName} is not in the hosted zone ${hostedZoneName}`);
  }
  return { domainName, hostedZoneId: hostedZoneId.toUpperCase(), hostedZoneName, certificateArn };
}

/** One stack per region, named `Postlane-<stage>-<region>`, each pinned to its region (replicas require it). */
export function addRegionalStacks(app: App, settings: PostlaneSettings = readSettings(app.node)): RegionalStack[] {
  const [home, ...others] = settings.regions;
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const stacks = settings.regions.map(
    (region) =>
      new RegionalStack(app, `Postlane-${settings.stage}-${region}`, {
        env: { region, ...(account ? { account } : {}) },
        description: `Postlane (${settings.stage}) API and data in ${region}`,
        namePrefix: namePrefixOf(settings.stage),
        tableName: settings.tableName,
        regions: settings.regions,
        independentRegions: settings.independentRegions,
        tableSource: settings.useRetainedData
          ? { kind: 'retained', replicated: !settings.independentRegions && settings.regions.length > 1 }
          : settings.independentRegions || region === home
            ? { kind: 'own', replicaRegions: settings.independentRegions ? [] : others }
            : { kind: 'replica' },
        ...(settings.alarmEmail ? { alarmEmail: settings.alarmEmail } : {}),
        ...(settings.customDomain ? { customDomain: settings.customDomain } : {}),
        api: settings.api,
        retentionDays: settings.retentionDays,
        ...(settings.eventBus ? { eventBus: settings.eventBus } : {}),
        ...(settings.mailFrom ? { mailFrom: settings.mailFrom } : {}),
        ...(settings.webAclArn ? { webAclArn: settings.webAclArn } : {}),
      }),
  );
  if (!settings.independentRegions) {
    // The replicas exist only once the home stack has deployed its global table.
    const [homeStack, ...replicaStacks] = stacks;
    for (const stack of replicaStacks) stack.addStackDependency(homeStack!);
  }
  return stacks;
}

function list(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(String);
  const text = String(value).trim();
  return text.startsWith('[')
    ? (JSON.parse(text) as unknown[]).map(String)
    : text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

function text(value: unknown): string | undefined {
  const trimmed = value === undefined || value === null ? '' : String(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

function flag(value: unknown): boolean {
  return value === true || value === 'true';
}
