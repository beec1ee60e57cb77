import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { TableV2, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { PostlaneAlarms } from './alarms.ts';
import { PostlaneApi, type ApiProtection } from './api.ts';
import { AttachmentsBucket } from './attachments-bucket.ts';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { CustomDomain, originDomainName, regionalDomainName, type CustomDomainSettings } from './custom-domain.ts';
import { DashboardSite } from './dashboard-site.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { EventFanOut } from './event-fan-out.ts';
import { acknowledgeFindings } from './nag.ts';
import { SesFeedback } from './feedback.ts';
import { RetryQueue } from './retry-queue.ts';
import { BroadcastEngine } from './broadcasts.ts';
import { AudienceExports } from './exports.ts';
import { PostlaneTable } from './table.ts';
import { WebhookDelivery } from './webhooks.ts';

/**
 * Where this region's table comes from: `own` creates it here (with replicas in
 * the listed regions, or none), `replica` uses the replica another stack's global
 * table keeps in this region, `retained` the table and secret an earlier
 * deployment left behind (`cdk destroy` keeps both), used by name.
 */
export type TableSource =
  | { readonly kind: 'own'; readonly replicaRegions: readonly string[] }
  | { readonly kind: 'replica' }
  | { readonly kind: 'retained'; readonly replicated: boolean };

export interface RegionalStackProps extends StackProps {
  /** `postlane-<stage>`: queue and bucket names start with it. */
  readonly namePrefix: string;
  readonly tableName: string;
  readonly tableSource: TableSource;
  /** Every region of the deployment, the first being the default home of new accounts. */
  readonly regions: readonly string[];
  /** One unreplicated table per region: each account's data stays in its home region. */
  readonly independentRegions: boolean;
  readonly alarmEmail?: string;
  readonly customDomain?: CustomDomainSettings;
  readonly api: ApiProtection;
  /** Days email records, events and webhook deliveries are kept (DynamoDB TTL); 30 by default. */
  readonly retentionDays?: number;
  /** The EventBridge bus every event is also put on (`default`: the account's default bus); none unless set. */
  readonly eventBus?: string;
  /** The sender of the deployment's own mail to people (SERVICE_MAIL_FROM); none unless set. */
  readonly mailFrom?: string;
  /** A CLOUDFRONT-scope web ACL for the distributions; none unless set. */
  readonly webAclArn?: string;
}

/** How long email records, events and deliveries are kept unless `postlane:retentionDays` says otherwise (docs/webhooks.md, Retention). */
export const DEFAULT_RETENTION_DAYS = 30;

/** Where the key of the signed unsubscribe and preference links lives, beside the table it belongs to. */
export function linkSigningSecretName(tableName: string): string {
  return `${tableName}/link-signing`;
}

/** Everything Postlane runs in one region: the API, its functions, the table (or its replica), the link-signing key and the attachments bucket. */
export class RegionalStack extends Stack {
  readonly table: ITableV2;
  readonly api: PostlaneApi;
  readonly feedback: SesFeedback;
  readonly attachments: AttachmentsBucket;
  readonly retryQueue: RetryQueue;
  readonly webhooks: WebhookDelivery;
  readonly eventFanOut: EventFanOut;
  readonly broadcasts: BroadcastEngine;
  readonly exports: AudienceExports;
  readonly alarms: PostlaneAlarms;
  readonly customDomain?: CustomDomain;
  readonly site: DashboardSite;
  /** The dashboard and the API on one origin: the stack's public address. */
  readonly distribution: Distribution;
  /** The distribution at the custom domain's shared name: the first region's stack, with a custom domain. */
  readonly sharedDistribution?: Distribution;

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    super(scope, id, props);
    this.table =
      props.tableSource.kind === 'own'
        ? new PostlaneTable(this, 'Table', { tableName: props.tableName, replicaRegions: props.tableSource.replicaRegions })
        : TableV2.fromTableName(this, 'Table', props.tableName);
    const linkSigning = linkSigningSecretName(props.tableName);
    if (props.tableSource.kind === 'own') {
      // Generated at deploy time, never seen by anyone; replicated with the table, so a
      // link signed in one region verifies in every other (a custom domain may route
      // a click to either). Retained like the table: links in sent mail must keep working.
      const secret = new Secret(this, 'LinkSigningSecret', {
        secretName: linkSigning,
        description: 'Postlane: key of the signed unsubscribe and preference links',
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        replicaRegions: props.tableSource.replicaRegions.map((region) => ({ region })),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      acknowledgeFindings(secret, {
        'AwsSolutions-SMG4':
          'Not rotated: the key signs the unsubscribe links in mail already sent, which must keep working for good (CAN-SPAM, RFC 8058); rotating it would break every one',
      });
    }
    this.feedback = new SesFeedback(this, 'SesFeedback', { table: this.table, namePrefix: props.namePrefix });
    // One bucket per region: an upload is sent from the region it was made in.
    const retentionDays = props.retentionDays ?? DEFAULT_RETENTION_DAYS;
    this.attachments = new AttachmentsBucket(this, 'Attachments', { namePrefix: props.namePrefix, retentionDays });
    this.retryQueue = new RetryQueue(this, 'RetryQueue', {
      namePrefix: props.namePrefix,
      table: this.table,
      sesConfigurationSet: this.feedback.configurationSet.configurationSetName,
      attachmentsBucket: this.attachments.bucket,
    });
    this.webhooks = new WebhookDelivery(this, 'Webhooks', { namePrefix: props.namePrefix, table: this.table, retentionDays });
    // Every region reads its own replica's stream; each fans out only the events of accounts homed there (shared/webhooks/stream.ts).
    this.eventFanOut = new EventFanOut(this, 'EventFanOut', {
      namePrefix: props.namePrefix,
      table: this.table,
      ownsTable: props.tableSource.kind === 'own',
      webhooks: this.webhooks,
      ...(props.eventBus ? { eventBus: props.eventBus } : {}),
    });
    this.broadcasts = new BroadcastEngine(this, 'Broadcasts', {
      namePrefix: props.namePrefix,
      table: this.table,
      sesConfigurationSet: this.feedback.configurationSet.configurationSetName,
      linkSigningSecretName: linkSigning,
      attachmentsBucket: this.attachments.bucket,
    });
    this.exports = new AudienceExports(this, 'Exports', { namePrefix: props.namePrefix, table: this.table, attachmentsBucket: this.attachments.bucket });
    this.api = new PostlaneApi(this, 'Api', {
      table: this.table,
      secrets: { linkSigning },
      sesConfigurationSet: this.feedback.configurationSet.configurationSetName,
      attachmentsBucket: this.attachments.bucket,
      queues: {
        retry: this.retryQueue.queue,
        webhooks: this.webhooks.queue,
        webhooksSlow: this.webhooks.slowLane.queue,
        broadcast: this.broadcasts.queue,
        export: this.exports.queue,
      },
      scheduler: { queue: this.broadcasts.queue, role: this.broadcasts.schedulerRole, deadLetterQueue: this.broadcasts.scheduleDeadLetterQueue },
      protection: props.api,
    });
    // The stage's own address: what the distributions forward to. It bypasses a web ACL; clients get the distribution's.
    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint, description: 'The API origin behind the distribution; give clients PublicUrl' });
    // What the admin replay commands take as --queue.
    new CfnOutput(this, 'FeedbackDeadLetterQueueUrl', { value: this.feedback.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'RetryDeadLetterQueueUrl', { value: this.retryQueue.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', { value: this.webhooks.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'WebhookSlowDeadLetterQueueUrl', { value: this.webhooks.slowLane.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'EventFanOutFailuresQueueUrl', { value: this.eventFanOut.failures.queueUrl });
    new CfnOutput(this, 'BroadcastDeadLetterQueueUrl', { value: this.broadcasts.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'BroadcastScheduleDeadLetterQueueUrl', { value: this.broadcasts.scheduleDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'ExportDeadLetterQueueUrl', { value: this.exports.deadLetterQueue.queueUrl });

    const endpoints = this.node.findAll().filter((node): node is EndpointFunction => node instanceof EndpointFunction);
    for (const endpoint of endpoints) endpoint.useRegions(props.tableName, props.regions, props.independentRegions);
    const functions = endpoints.map((endpoint) => endpoint.function);
    // Whatever a function writes that expires (email records, events, deliveries) expires after the same days.
    for (const fn of functions) fn.addEnvironment('RETENTION_DAYS', String(retentionDays));
    // Like RETENTION_DAYS, to every function: the routes that ask for sign-in codes and invitations compose them from it.
    if (props.mailFrom) for (const fn of functions) fn.addEnvironment('SERVICE_MAIL_FROM', props.mailFrom);
    // Generated at deploy time, never seen by anyone; nothing outlives it, so it goes with the stack.
    const originSecret = new Secret(this, 'OriginVerifySecret', {
      description: 'Postlane: the header value by which the API knows a request came through its CloudFront distributions',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeFindings(originSecret, {
      'AwsSolutions-SMG4':
        'Not rotated by a function: the distributions and the functions take the value at deploy time, so a new value (replacing the secret) takes effect with a deploy',
    });
    // In the environment (a dynamic reference, resolved at deploy time): read on every request, so no call to Secrets Manager.
    const apiFunctions = this.api.node.findAll().filter((node): node is EndpointFunction => node instanceof EndpointFunction);
    for (const endpoint of apiFunctions) endpoint.function.addEnvironment('ORIGIN_VERIFY_SECRET', originSecret.secretValue.unsafeUnwrap());
    this.site = new DashboardSite(this, 'Dashboard', { namePrefix: props.namePrefix, originSecret });
    const domain = props.customDomain;
    const certificate = domain ? Certificate.fromCertificateArn(this, 'SiteCertificate', domain.certificateArn) : undefined;
    const webAcl = props.webAclArn ? { webAclArn: props.webAclArn } : {};
    this.distribution = this.site.distribution('Site', {
      apiDomainName: `${this.api.httpApi.apiId}.execute-api.${this.region}.${this.urlSuffix}`,
      ...(domain && certificate ? { domain: { names: [regionalDomainName(domain.domainName, this.region)], certificate } } : {}),
      ...webAcl,
    });
    if (domain && certificate && props.regions[0] === this.region) {
      this.sharedDistribution = this.site.distribution('SharedSite', {
        apiDomainName: originDomainName(domain.domainName),
        domain: { names: [domain.domainName], certificate },
        ...webAcl,
      });
    }
    // Links are built from configuration, never from a request's Host: the distribution's address, where the dashboard is too.
    let publicUrl = `https://${this.distribution.distributionDomainName}`;
    if (domain) {
      this.customDomain = new CustomDomain(this, 'CustomDomain', {
        settings: domain,
        httpApi: this.api.httpApi,
        stage: this.api.stage,
        regionalSite: this.distribution,
        ...(this.sharedDistribution ? { sharedSite: this.sharedDistribution } : {}),
      });
      // Links in sent mail must come back to a region holding the same data and
      // signing key: with a replicated table any region will do, else only this one.
      const source = props.tableSource;
      const replicated = source.kind === 'replica' || (source.kind === 'retained' ? source.replicated : source.replicaRegions.length > 0);
      publicUrl = replicated ? this.customDomain.url : this.customDomain.regionalUrl;
    }
    for (const fn of functions) fn.addEnvironment('PUBLIC_BASE_URL', publicUrl);
    new CfnOutput(this, 'PublicUrl', { value: publicUrl, description: 'The dashboard (/app/) and the API: PUBLIC_BASE_URL' });
    // Last, so that its error alarms cover every function of the stack.
    this.alarms = new PostlaneAlarms(this, 'Alarms', {
      namePrefix: props.namePrefix,
      httpApi: this.api.httpApi,
      functions,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
  }
}
