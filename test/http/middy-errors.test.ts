/**
 * Middy's body parser, run as the endpoints run it, behind our response
 * middleware: its http errors reach the client as our envelope codes, never
 * with Middy's statuses or messages.
 */
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { httpResponse, type EndpointContext, type Middleware } from '#shared/platform/http/middleware.ts';
import { ok, type Reply } from '#shared/platform/http/reply.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

function post(headers: Record<string, string>, body?: string): APIGatewayProxyEventV2 {
  return {
    headers,
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
    routeKey: 'POST /test',
    requestContext: { http: { method: 'POST' } },
  } as unknown as APIGatewayProxyEventV2;
}

/** A handler behind `httpResponse` and `middleware`, answering the parsed body. */
async function run(middleware: Middleware, event: APIGatewayProxyEventV2): Promise<{ statusCode: number | undefined; body: unknown }> {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>()
    .use(httpResponse())
    .use(middleware)
    .handler(async (request) => ok({ parsed: request.body }));
  const result = (await handler(event, {} as EndpointContext)) as APIGatewayProxyStructuredResultV2;
  return { statusCode: result.statusCode, body: JSON.parse(result.body!) };
}

/** What a Middy middleware throws: an http error naming its package (@middy/util's createError). */
function middyHttpError(statusCode: number, message: string): Middleware {
  return {
    before: () => {
      throw Object.assign(new Error(message, { cause: { package: '@middy/http-example' } }), { statusCode, expose: true });
    },
  };
}

describe("Middy's http errors", () => {
  const parser = httpJsonBodyParser() as Middleware;

  it('parses a JSON body through the response middleware unchanged', async () => {
    expect(await run(parser, post({ 'content-type': 'application/json' }, '{"name":"x"}'))).toEqual({
      statusCode: 200,
      body: { success: true, parsed: { name: 'x' } },
    });
  });

  it('answers its 415 for JSON it cannot parse, or no body, as 400 INVALID_JSON', async () => {
    for (const event of [post({ 'content-type': 'application/json' }, '{"name":'), post({ 'content-type': 'application/json' })]) {
      expect(await run(parser, event)).toEqual({ statusCode: 400, body: { success: false, error: 'INVALID_JSON', message: 'Request body is not valid JSON' } });
    }
  });

  it('answers its 415 for another media type as 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expect(await run(parser, post({ 'content-type': 'text/plain' }, '{}'))).toEqual({
      statusCode: 415,
      body: { success: false, error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Request bodies must be application/json' },
    });
  });

  it('answers 422 "malformed" as INVALID_JSON and 413 as PAYLOAD_TOO_LARGE', async () => {
    expect(await run(middyHttpError(422, 'Invalid or malformed JSON was provided'), post({}))).toMatchObject({
      statusCode: 400,
      body: { error: 'INVALID_JSON' },
    });
    expect(await run(middyHttpError(413, 'Payload Too Large'), post({}))).toMatchObject({ statusCode: 413, body: { error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers any other http error, and one that names no Middy package, as 500 INTERNAL_ERROR, logged', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const foreign: Middleware = {
      before: () => {
        throw Object.assign(new Error('Bad Request secret-detail'), { statusCode: 400 });
      },
    };

    for (const middleware of [middyHttpError(401, 'Unauthorized secret-detail'), foreign]) {
      const answer = await run(middleware, post({}));
      expect(answer).toEqual({ statusCode: 500, body: { success: false, error: 'INTERNAL_ERROR', message: expect.any(String) } });
      expect(JSON.stringify(answer)).not.toContain('secret-detail');
    }
    expect(logged).toHaveBeenCalledTimes(2);
  });
});
