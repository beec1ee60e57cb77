/**
 * The AWS a function's bundle talks to in the bundle suite: one HTTP endpoint
 * per function, at which every client of the bundle is pointed (the
 * configuration's endpoint variables, and the SDK's own
 * `AWS_ENDPOINT_URL_<SERVICE>` for the clients that have none). It tells the
 * service from the request's signature, as AWS does, records each call as IAM
 * sees it (the mappings of test/support/aws-calls.ts, checked with every other
 * test's calls against the roles), and hands the request to the local
 * stand-in: DynamoDB Local, the SES emulator, the local SQS, S3 and
 * scheduler. What has no local stand-in it answers itself, in the service's
 * own protocol: Secrets Manager's GetSecretValue, EventBridge's PutEvents and
 * SES's identities. Nothing in the functions' code knows it is there.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocally } from '#dev/local/service.ts';
import { dynamoActions, eventsActions, recordCallOf, s3Actions, schedulerActions, secretsActions, sesActions, sqsActions } from '../support/aws-calls.ts';
import type { CallResource } from '../support/iam.ts';

/** Where the calls of the services with a local stand-in go. */
export interface Upstreams {
  dynamodb: string;
  ses: string;
  sqs: string;
  s3: string;
  scheduler: string;
}

/** SES's sending identities of the one AWS account: shared by every function, as in AWS. */
export class SesIdentities {
  private readonly identities = new Map<string, { verified: boolean; tokens: string[] }>();

  /** As SES does once it sees the identity's DKIM records in DNS. */
  verify(domain: string): void {
    const identity = this.identities.get(domain);
    if (!identity) throw new Error(`SES has no identity ${domain}`);
    identity.verified = true;
  }

  has(domain: string): boolean {
    return this.identities.has(domain);
  }

  create(domain: string): boolean {
    if (this.identities.has(domain)) return false;
    this.identities.set(domain, { verified: false, tokens: [1, 2, 3].map(() => randomUUID().replaceAll('-', '')) });
    return true;
  }

  /** GetEmailIdentity's answer, or undefined for an identity SES does not have. */
  describe(domain: string) {
    const identity = this.identities.get(domain);
    if (!identity) return undefined;
    return {
      IdentityType: 'DOMAIN',
      VerifiedForSendingStatus: identity.verified,
      DkimAttributes: { SigningEnabled: true, Status: identity.verified ? 'SUCCESS' : 'PENDING', Tokens: identity.tokens, SigningAttributesOrigin: 'AWS_SES' },
    };
  }

  delete(domain: string): void {
    this.identities.delete(domain);
  }
}

/** What the services without a local stand-in hold, and the faults a test asks SES for. */
export interface StandIns {
  /** The text of the link-signing secret. */
  secret(): Promise<string>;
  identities: SesIdentities;
  /** Every entry PutEvents accepted, with the function that put it. */
  events: { handler: string; entry: Record<string, unknown> }[];
  /** Recipients whose SendEmail SES answers TooManyRequests, as under its sending rate. */
  throttled: Set<string>;
  /** Requests the gateway could not map to an operation: the suite fails on any. */
  unexpected: string[];
}

export function newStandIns(secret: () => Promise<string>): StandIns {
  return { secret, identities: new SesIdentities(), events: [], throttled: new Set(), unexpected: [] };
}

export interface Gateway {
  url: string;
  stop(): Promise<void>;
}

interface Call {
  request: IncomingMessage;
  path: string;
  body: Buffer;
  response: ServerResponse;
}

/** The service a SigV4 request was signed for, from its Authorization header or a pre-signed URL's credential. */
function signedService(request: IncomingMessage): string | undefined {
  const header = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(request.headers.authorization ?? '')?.[1];
  return header ?? new URL(request.url ?? '/', 'http://gateway').searchParams.get('X-Amz-Credential')?.split('/')[3];
}

function json(body: Buffer): Record<string, any> {
  return body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, any>);
}

/** `AmazonSQS.SendMessage` → `SendMessage`: the JSON protocols name the operation in a header. */
function targetOperation(request: IncomingMessage): string {
  return String(request.headers['x-amz-target'] ?? '').replace(/^.*\./, '');
}

function reply(response: ServerResponse, status: number, body: unknown, contentType: string, errorType?: string): void {
  response.writeHead(status, { 'content-type': contentType, ...(errorType ? { 'x-amzn-errortype': errorType } : {}) }).end(JSON.stringify(body));
}

const AWS_JSON = 'application/x-amz-json-1.1';
const REST_JSON = 'application/json';

/** Passes the request on to a local stand-in unchanged (its signature, host header included, with it) and its answer back. */
function forward(call: Call, upstream: string): void {
  const target = new URL(call.request.url ?? '/', upstream);
  const outgoing = httpRequest(target, { method: call.request.method, headers: call.request.headers }, (answer) => {
    call.response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(call.response);
  });
  outgoing.on('error', (error) => reply(call.response, 502, { message: `gateway: ${error.message}` }, REST_JSON, 'ServiceUnavailable'));
  outgoing.end(call.body);
}

/** SES v2's REST routes the functions use, by method and path, with the path's parameter. */
const SES_ROUTES: [method: string, path: RegExp, operation: string, parameter?: string][] = [
  ['POST', /^\/v2\/email\/outbound-emails$/, 'SendEmail'],
  ['GET', /^\/v2\/email\/account$/, 'GetAccount'],
  ['GET', /^\/v2\/email\/suppression\/addresses$/, 'ListSuppressedDestinations'],
  ['PUT', /^\/v2\/email\/suppression\/addresses$/, 'PutSuppressedDestination'],
  ['GET', /^\/v2\/email\/suppression\/addresses\/([^/]+)$/, 'GetSuppressedDestination', 'EmailAddress'],
  ['DELETE', /^\/v2\/email\/suppression\/addresses\/([^/]+)$/, 'DeleteSuppressedDestination', 'EmailAddress'],
  ['POST', /^\/v2\/email\/identities$/, 'CreateEmailIdentity'],
  ['GET', /^\/v2\/email\/identities\/([^/]+)$/, 'GetEmailIdentity', 'EmailIdentity'],
  ['DELETE', /^\/v2\/email\/identities\/([^/]+)$/, 'DeleteEmailIdentity', 'EmailIdentity'],
];

/** EventBridge Scheduler's REST routes: one path per schedule, the operation by method. */
const SCHEDULE_OPERATIONS: Record<string, string> = { POST: 'CreateSchedule', PUT: 'UpdateSchedule', DELETE: 'DeleteSchedule', GET: 'GetSchedule' };

/** The local stack's link-signing item (shared/platform/signing/secret-store.ts): a deployed function has no such fallback. */
function readsLocalSigningKey(input: Record<string, any>): boolean {
  return input.Key?.pk?.S === 'SYSTEM';
}

/**
 * Starts the gateway of `functions/<handler>.ts`. `linkSigningName`: the
 * secret name the stack gives the function (SIGNING_SECRET_PARAMETER), the
 * one its role may read.
 */
export async function startGateway(options: { handler: string; upstreams: Upstreams; standIns: StandIns; linkSigningName?: string }): Promise<Gateway> {
  const { handler, upstreams, standIns } = options;
  const record = (actions: [string, CallResource][]) => {
    for (const [action, resource] of actions) recordCallOf(handler, action, resource);
  };
  const unexpected = (call: Call, service: string | undefined) => {
    standIns.unexpected.push(`${handler}: ${service ?? 'unsigned'} ${call.request.method} ${call.path}`);
    reply(call.response, 400, { message: 'not a call the bundle suite knows' }, REST_JSON, 'UnknownOperationException');
  };

  const services: Record<string, (call: Call) => void | Promise<void>> = {
    dynamodb(call) {
      const operation = targetOperation(call.request);
      const input = json(call.body);
      record(dynamoActions(operation, input));
      if (readsLocalSigningKey(input)) {
        return reply(
          call.response,
          400,
          { __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException', message: 'Deployed, there is no link-signing key in the table' },
          'application/x-amz-json-1.0',
        );
      }
      forward(call, upstreams.dynamodb);
    },
    sqs(call) {
      // The JSON protocol, or the query protocol of older clients.
      const form = call.request.headers['x-amz-target'] ? undefined : new URLSearchParams(call.body.toString('utf8'));
      const operation = form ? String(form.get('Action')) : targetOperation(call.request);
      record(sqsActions(operation, form ? { QueueUrl: form.get('QueueUrl') } : json(call.body)));
      forward(call, upstreams.sqs);
    },
    s3(call) {
      record(s3Actions(call.request.method ?? 'GET', call.path));
      forward(call, upstreams.s3);
    },
    scheduler(call) {
      const name = /^\/schedules\/([^/?]+)/.exec(call.path)?.[1];
      const operation = SCHEDULE_OPERATIONS[call.request.method ?? ''];
      if (!name || !operation) return unexpected(call, 'scheduler');
      record(schedulerActions(operation, { ...json(call.body), Name: decodeURIComponent(name) }));
      forward(call, upstreams.scheduler);
    },
    async secretsmanager(call) {
      const operation = targetOperation(call.request);
      const input = json(call.body);
      record(secretsActions(operation, input, options.linkSigningName));
      if (operation !== 'GetSecretValue') return unexpected(call, 'secretsmanager');
      const name = String(input.SecretId);
      reply(
        call.response,
        200,
        {
          ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-AbC123`,
          Name: name,
          SecretString: await standIns.secret(),
          VersionId: 'bundle-suite',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: 1_767_225_600,
        },
        AWS_JSON,
      );
    },
    events(call) {
      const operation = targetOperation(call.request);
      const input = json(call.body);
      record(eventsActions(operation, input));
      if (operation !== 'PutEvents') return unexpected(call, 'events');
      const entries = (input.Entries ?? []) as Record<string, unknown>[];
      for (const entry of entries) standIns.events.push({ handler, entry });
      reply(call.response, 200, { FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) }, AWS_JSON);
    },
    ses(call) {
      const method = call.request.method ?? 'GET';
      const route = SES_ROUTES.find(([routeMethod, path]) => routeMethod === method && path.test(call.path));
      if (!route) return unexpected(call, 'ses');
      const [, path, operation, parameter] = route;
      const input = { ...json(call.body), ...(parameter ? { [parameter]: decodeURIComponent(path.exec(call.path)![1]!) } : {}) };
      record(sesActions(operation, input));
      const identity = String(input.EmailIdentity ?? '');
      switch (operation) {
        case 'SendEmail': {
          const recipients: string[] = [...(input.Destination?.ToAddresses ?? []), ...(input.Destination?.CcAddresses ?? [])];
          if (recipients.some((recipient) => standIns.throttled.has(recipient))) {
            return reply(call.response, 429, { message: 'Maximum sending rate exceeded.' }, REST_JSON, 'TooManyRequestsException');
          }
          return forward(call, upstreams.ses);
        }
        case 'CreateEmailIdentity':
          if (!standIns.identities.create(identity)) {
            return reply(call.response, 400, { message: `Email identity ${identity} already exist.` }, REST_JSON, 'AlreadyExistsException');
          }
          return reply(call.response, 200, standIns.identities.describe(identity), REST_JSON);
        case 'GetEmailIdentity': {
          const described = standIns.identities.describe(identity);
          if (!described) return reply(call.response, 404, { message: `Email identity ${identity} does not exist.` }, REST_JSON, 'NotFoundException');
          return reply(call.response, 200, described, REST_JSON);
        }
        case 'DeleteEmailIdentity':
          standIns.identities.delete(identity);
          return reply(call.response, 200, {}, REST_JSON);
        default:
          return forward(call, upstreams.ses);
      }
    },
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = { request, response, body: Buffer.concat(chunks), path: new URL(request.url ?? '/', 'http://gateway').pathname };
      const service = signedService(request);
      const serve = service ? services[service] : undefined;
      Promise.resolve(serve ? serve(call) : unexpected(call, service)).catch((error: unknown) =>
        reply(response, 500, { message: `gateway: ${String(error)}` }, REST_JSON, 'InternalFailure'),
      );
    });
  });
  const { endpoint, stop } = await listenLocally(server, 0, '127.0.0.1');
  return { url: endpoint, stop };
}
