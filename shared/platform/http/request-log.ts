/**
 * The request's log context and its access-log line. A wrapper around the
 * Middy handler rather than a middleware: the context must surround the whole
 * invocation (every middleware and the domain code below it) for
 * AsyncLocalStorage to carry it, and only the outermost caller can time it.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { log, withLogContext } from '#shared/platform/log.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * `handler`, with `requestId` (API Gateway's, which clients see as the
 * `apigw-requestid` header) and `lambdaRequestId` on every line it logs, and
 * one `request` line when it ends: route, method, status and duration. The
 * route is the template (`GET /api/contacts/email/{email}`), never the path,
 * so no address in a path reaches the log; nor do headers, bodies or the query.
 */
export function withRequestLog(handler: Handler): Handler {
  return (event, context) =>
    withLogContext(
      {
        requestId: event.requestContext?.requestId ?? context.awsRequestId,
        lambdaRequestId: context.awsRequestId,
      },
      async () => {
        const started = performance.now();
        let status = 500; // what API Gateway answers when the invocation itself fails
        try {
          const result = await handler(event, context);
          status = result.statusCode ?? 200;
          return result;
        } finally {
          log.info('request', {
            route: event.routeKey,
            method: event.requestContext?.http?.method,
            status,
            durationMs: Math.round(performance.now() - started),
          });
        }
      },
    );
}
