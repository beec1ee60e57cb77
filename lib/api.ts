import { HttpApi, HttpMethod, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FALLBACK_HANDLER, KEYED_ROUTE_TABLE_ACTIONS, ROUTES, type QueueName, type Route, type SecretName, type TableAction } from '#shared/http/routes.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings, FIXED_BY_OPS_BRANCH } from './nag.ts';

export interface PostlaneApiProps {
  readonly table: ITableV2;
  /** The Secrets Manager name of each secret routes may declare. */
  readonly secrets: Record<SecretName, string>;
  readonly sesConfigurationSet: string;
  /** Where POST /api/attachments uploads go and the send endpoint reads them. */
  readonly attachmentsBucket: IBucket;
  /** Each queue routes may declare. */
  readonly queues: Record<QueueName, IQueue>;
}

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

  constructor(scope: Construct, id: string, props: PostlaneApiProps) {
    super(scope, id);
    const integrate = (handler: string, routes: readonly Route[]): HttpLambdaIntegration => {
      const fn = new EndpointFunction(this, constructId(handler), {
        handler,
        table: props.table,
        tableActions: tableActionsOf(routes),
        sesActions: [...new Set(routes.flatMap((route) => route.ses ?? []))].sort(),
        secrets: Object.fromEntries([...new Set(routes.flatMap((route) => route.secrets ?? []))].map((name) => [name, props.secrets[name]])),
        sesConfigurationSet: props.sesConfigurationSet,
        attachments: { bucket: props.attachmentsBucket, access: [...new Set(routes.flatMap((route) => route.attachments ?? []))].sort() },
        queues: Object.fromEntries([...new Set(routes.flatMap((route) => route.queues ?? []))].map((name) => [name, props.queues[name]])),
      });
      return new HttpLambdaIntegration(`${constructId(handler)}Integration`, fn.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      });
    };

    this.httpApi = new HttpApi(this, 'Http', {
      apiName: 'postlane',
      description: 'Postlane email and contacts API',
      defaultIntegration: integrate(FALLBACK_HANDLER, []),
    });
    acknowledgeFindings(this.httpApi, {
      'AwsSolutions-APIG4': 'API keys are checked inside the functions (a hash lookup with the account\'s permission and rate limit, shared/http/middleware.ts), so no API Gateway authorizer; public routes (forms, signed unsubscribe links, docs) are public by design',
      // OPS-BRANCH: remove these three once the ops branch (stage throttling and access logs) is merged.
      'AwsSolutions-APIG1': FIXED_BY_OPS_BRANCH,
      'Serverless-APIGWAccessLogging': FIXED_BY_OPS_BRANCH,
      'Serverless-APIGWDefaultThrottling': FIXED_BY_OPS_BRANCH,
    });
    for (const [handler, routes] of routesByHandler(ROUTES)) {
      const integration = integrate(handler, routes);
      for (const route of routes) {
        this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      }
    }
  }
}

/**
 * The table actions a function needs for all the routes it serves: what each
 * declares, plus key lookup and rate limiting where a route takes an API key.
 */
function tableActionsOf(routes: readonly Route[]): TableAction[] {
  const actions = new Set<TableAction>();
  for (const route of routes) {
    for (const action of route.table) actions.add(action);
    if (route.auth === 'key') for (const action of KEYED_ROUTE_TABLE_ACTIONS) actions.add(action);
  }
  return [...actions].sort();
}

function routesByHandler(routes: readonly Route[]): Map<string, Route[]> {
  const byHandler = new Map<string, Route[]>();
  for (const route of routes) byHandler.set(route.handler, [...(byHandler.get(route.handler) ?? []), route]);
  return byHandler;
}

/** `contacts/get-by-email` → `ContactsGetByEmail`: stable logical ids as long as module names are. */
function constructId(handler: string): string {
  return handler.split(/[/-]/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}
