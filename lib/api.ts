import { NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ROUTES } from '#functions/routes.ts';
import {
  edgeRoutes,
  FALLBACK_HANDLER,
  PREFLIGHT_HANDLER,
  isAuthenticated,
  KEYED_ROUTE_TABLE_ACTIONS,
  type EdgeRoute,
  type QueueName,
  type Route,
  type SecretName,
  type TableAction,
} from '#shared/platform/http/routes.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';

export interface PostlaneApiProps {
  readonly table: ITableV2;
  /** The Secrets Manager name of each secret routes may declare. */
  readonly secrets: Record<SecretName, string>;
  readonly sesConfigurationSet: string;
  /** Where POST /api/attachments uploads go and the send endpoint reads them. */
  readonly attachmentsBucket: IBucket;
  /** Each queue routes may declare. */
  readonly queues: Record<QueueName, IQueue>;
  /** What routes marked `scheduler` need: the broadcast queue, EventBridge Scheduler's role and the schedules' dead-letter queue. */
  readonly scheduler: { readonly queue: IQueue; readonly role: IRole; readonly deadLetterQueue: IQueue };
  readonly protection: ApiProtection;
}

/** What guards the stage (context `postlane:throttle*`, `postlane:accessLogRetentionDays`, `postlane:corsOrigins`). */
export interface ApiProtection {
  /** Every route's default. */
  readonly throttle: Required<ThrottleSettings>;
  /** Routes marked `throttle: 'public'` in the route table. */
  readonly publicThrottle: Required<ThrottleSettings>;
  readonly accessLogRetention: RetentionDays;
  /** CORS_ALLOWED_ORIGINS of the functions: `*` or comma-separated origins. */
  readonly corsOrigins: string;
}

/**
 * One JSON object per request. Only API Gateway's own fields: never headers
 * (`x-api-key`), the query or the path (an address in `/api/contacts/email/…`),
 * which is why the route key stands in for the path.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
} as const;

/** On the API (its $default route) and on each route, which the area's nested stack holds. */
const NO_AUTHORIZER = {
  'AwsSolutions-APIG4':
    "API keys are checked inside the functions (a hash lookup with the account's permission and rate limit, shared/platform/http/middleware.ts), so no API Gateway authorizer; public routes (forms, signed unsubscribe links, docs) are public by design",
};

/**
 * The public API: one function per handler module of the route table, one API
 * route per entry, and the fallback on `$default` for the envelope's 404 and 405.
 *
 * HTTP API (API Gateway v2) rather than REST API: about $1.00 against $3.50 per
 * million requests, lower added latency, the same 10 MB request limit, and the
 * handlers already take the v2 payload. What it lacks is AWS WAF; if a customer
 * needs WAF, put CloudFront with a web ACL in front of this API.
 */
export class PostlaneApi extends Construct {
  readonly httpApi: HttpApi;
  /** `$default`, with the throttling and access logs. */
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: PostlaneApiProps) {
    super(scope, id);
    // One nested stack per API area (the first segment of the handler module) holds
    // its functions, roles, policies, log groups, integrations, permissions and
    // routes: a regional stack would otherwise pass CloudFormation's 500 resources.
    // CDK passes what they use from this stack (the API, table, queues, bucket) as
    // nested-stack parameters. The fallback on $default stays here, with the API.
    const areas = new Map<string, NestedStack>();
    const areaOf = (handler: string): Construct => {
      const area = nestedStackArea(handler);
      let nested = areas.get(area);
      if (!nested) {
        nested = new NestedStack(this, `${constructId(area)}Endpoints`, { description: `Postlane ${area} endpoints` });
        areas.set(area, nested);
      }
      return nested;
    };
    const integrate = (scope: Construct, handler: string, routes: readonly Route[]): HttpLambdaIntegration => {
      const fn = new EndpointFunction(scope, constructId(handler), {
        handler,
        table: props.table,
        tableActions: tableActionsOf(routes),
        sesActions: [...new Set(routes.flatMap((route) => route.ses ?? []))].sort(),
        secrets: Object.fromEntries([...new Set(routes.flatMap((route) => route.secrets ?? []))].map((name) => [name, props.secrets[name]])),
        sesConfigurationSet: props.sesConfigurationSet,
        attachments: { bucket: props.attachmentsBucket, access: [...new Set(routes.flatMap((route) => route.attachments ?? []))].sort() },
        queues: Object.fromEntries([...new Set(routes.flatMap((route) => route.queues ?? []))].map((name) => [name, props.queues[name]])),
        ...(routes.some((route) => route.scheduler)
          ? { scheduler: { ...props.scheduler, actions: [...new Set(routes.flatMap((route) => route.scheduler ?? []))] } }
          : {}),
      });
      // The preflight function and the cors routes' own must answer the same origins.
      if (handler === PREFLIGHT_HANDLER || routes.some((route) => route.cors)) fn.function.addEnvironment('CORS_ALLOWED_ORIGINS', props.protection.corsOrigins);
      return new HttpLambdaIntegration(`${constructId(handler)}Integration`, fn.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        // One invoke permission per function for this API rather than one per route: the HEAD
        // twins and preflights would otherwise add a resource each, against CloudFormation's 500.
        // Only the routes integrated with a function reach it either way.
        scopePermissionToRoute: false,
      });
    };

    this.httpApi = new HttpApi(this, 'Http', {
      apiName: 'postlane',
      description: 'Postlane email and contacts API',
      defaultIntegration: integrate(this, FALLBACK_HANDLER, []),
      // The stage below replaces the implicit one, to carry throttling and access logs.
      createDefaultStage: false,
    });
    acknowledgeFindings(this.httpApi, NO_AUTHORIZER);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.protection.accessLogRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      autoDeploy: true,
      throttle: props.protection.throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)) },
    });

    const edge = edgeRoutes(ROUTES);
    // A JSON map in CloudFormation's own spelling: CDK passes its values through unconverted.
    const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const [handler, routes] of edgeRoutesByHandler(edge)) {
      // The preflight function answers from the route table alone: no table, no secrets.
      const scope = areaOf(handler);
      const integration = integrate(scope, handler, handler === PREFLIGHT_HANDLER ? [] : routes.map((route) => route.route));
      for (const route of routes) {
        // In the area's nested stack (httpApi.addRoutes would put the route beside the API).
        const added = new HttpRoute(scope, `${route.method}${route.path}`, {
          httpApi: this.httpApi,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
          integration,
        });
        acknowledgeFindings(added, NO_AUTHORIZER);
        if (route.route.throttle !== 'public') continue;
        routeSettings[`${route.method} ${route.path}`] = {
          ThrottlingRateLimit: props.protection.publicThrottle.rateLimit,
          ThrottlingBurstLimit: props.protection.publicThrottle.burstLimit,
        };
        // CloudFormation refuses settings for a route key that does not exist yet.
        this.stage.node.addDependency(added);
      }
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
  }
}

/**
 * The table actions a function needs for all the routes it serves: what each
 * declares, plus the key or session check and rate limiting where a route has a caller.
 */
function tableActionsOf(routes: readonly Route[]): TableAction[] {
  const actions = new Set<TableAction>();
  for (const route of routes) {
    for (const action of route.table) actions.add(action);
    if (isAuthenticated(route)) for (const action of KEYED_ROUTE_TABLE_ACTIONS) actions.add(action);
  }
  return [...actions].sort();
}

function edgeRoutesByHandler(routes: readonly EdgeRoute[]): Map<string, EdgeRoute[]> {
  const byHandler = new Map<string, EdgeRoute[]>();
  for (const route of routes) byHandler.set(route.handler, [...(byHandler.get(route.handler) ?? []), route]);
  return byHandler;
}

/**
 * The nested stack a handler's function and routes go in: its area (`contacts`
 * for `contacts/get-by-email`). No area comes near the 500 resources of a stack:
 * test/infra/regional-stacks.test.ts holds each to the same budget as the parent.
 */
export function nestedStackArea(handler: string): string {
  return handler.split('/')[0]!;
}

/** `contacts/get-by-email` → `ContactsGetByEmail`: stable logical ids as long as module names are. */
function constructId(handler: string): string {
  return handler
    .split(/[/-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
