/**
 * The HTTP API of `npm start` and the tests: every request runs the same
 * handler module the stack deploys, fed the event API Gateway would send.
 *
 * Hosted forms (`/f/<slug>`) need nothing here: they are a public route in
 * the route table like any other (`GET /f/{slug}`), and this server writes
 * whatever content type a handler answers with, HTML included.
 *
 * The dashboard (`/app/...`) is static files, which the deployed stack serves
 * from its distribution without any function: here from its build (dev/local/dashboard.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PostlaneError } from '#shared/platform/errors.ts';
import { errorReply } from '#shared/platform/http/error-envelope.ts';
import { log } from '#shared/platform/log.ts';
import { buildHttpApiEvent, invocationPayloadBytes, invokeTarget, LAMBDA_MAX_PAYLOAD_BYTES, routeRequest, type HttpResult } from './http-event.ts';
import { DASHBOARD_OUT, isDashboardPath, serveDashboard } from './dashboard.ts';
import { listenLocally } from './service.ts';

/** API Gateway refuses larger payloads before any Lambda runs. */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface LocalHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The whole body, or undefined past the limit; the rest is still drained so the client reads the answer rather than a reset. */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size <= limit ? Buffer.concat(chunks) : undefined;
}

function tooLarge(): HttpResult {
  const reply = errorReply(new PostlaneError('PAYLOAD_TOO_LARGE', `Request body exceeds ${API_GATEWAY_MAX_BODY_BYTES} bytes, the API Gateway limit`));
  return { statusCode: reply.status, headers: { 'content-type': 'application/json' }, cookies: [], body: Buffer.from(JSON.stringify(reply.body)) };
}

/**
 * API Gateway's own answer when Lambda refuses the event as too large
 * (RequestEntityTooLargeException): 413 with API Gateway's body, not our
 * envelope, since no function ran. As AWS's Lambda Test Tool v2 emulates an
 * HTTP API (aws/aws-lambda-dotnet, pull request 1990: "Add 6MB request and
 * response size check"). See docs/limits.md.
 */
function lambdaRefused(): HttpResult {
  return {
    statusCode: 413,
    headers: { 'content-type': 'application/json' },
    cookies: [],
    body: Buffer.from(JSON.stringify({ message: 'Request Entity Too Large' })),
  };
}

function write(response: ServerResponse, result: HttpResult): void {
  response.statusCode = result.statusCode;
  for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, value);
  if (result.cookies.length > 0) response.setHeader('set-cookie', result.cookies);
  response.setHeader('content-length', result.body.length);
  response.end(result.body);
}

async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readBody(request, API_GATEWAY_MAX_BODY_BYTES);
  if (!body) return write(response, tooLarge());
  const url = request.url ?? '/';
  const method = request.method ?? 'GET';
  const path = url.split('?')[0]!;
  if (isDashboardPath(path)) return write(response, await serveDashboard(path, method, DASHBOARD_OUT));
  const target = routeRequest(method, path);
  const event = buildHttpApiEvent({ method, url, headers: request.headersDistinct, body, sourceIp: request.socket.remoteAddress ?? '127.0.0.1' }, target);
  if (invocationPayloadBytes(event) > LAMBDA_MAX_PAYLOAD_BYTES) return write(response, lambdaRefused());
  const { result, error } = await invokeTarget(event, target);
  if (error) log.error('handler failed', { handler: target.handler, requestId: event.requestContext.requestId, error });
  write(response, result);
}

/**
 * Listens on `host:port` (port 0: any free port).
 *
 * `const api = await startHttpServer({ port: 3000 }); await fetch(`${api.url}/api/contacts`)`
 */
export async function startHttpServer(options: { port: number; host?: string }): Promise<LocalHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      log.error('local server failed', { error });
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  const { endpoint, port, stop } = await listenLocally(server, options.port, host);
  return { url: endpoint, port, close: stop };
}
