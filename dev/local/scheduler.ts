/**
 * An EventBridge Scheduler stand-in for `npm start` and the tests: the
 * REST-JSON calls the SDK's SchedulerClient makes for broadcasts
 * (CreateSchedule, UpdateSchedule, DeleteSchedule), in memory, for one-time
 * `at(…)` schedules whose target is an SQS queue. A due schedule puts its
 * input on the queue (found by the ARN's name in the local SQS) and, with
 * ActionAfterCompletion DELETE, goes away, as Scheduler does. `npm start` lets
 * a timer fire them; tests call `fireDue` with the time they want.
 *
 * A put that fails is tried again as the target's RetryPolicy allows (at once:
 * the stand-in does not wait out Scheduler's backoff, but counts its attempts
 * and the event's age from the scheduled time); an error Scheduler does not
 * retry (access denied, no such queue) is not. Then, as Scheduler does, the
 * target's DeadLetterConfig queue gets the dead-letter event: the input as the
 * body and the invocation's details as message attributes ("Configuring a
 * schedule's dead-letter queue", Scheduler's user guide); without one it is
 * dropped.
 */
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocally, type LocalService } from './service.ts';

/** Scheduler's retry policy when a target states none: 185 retries within 24 hours. */
const DEFAULT_RETRY = { maximumEventAgeSeconds: 86_400, maximumRetryAttempts: 185 };

export interface LocalSchedule {
  name: string;
  at: Date;
  target: { arn: string; input: string; deadLetterArn?: string };
  retry: { maximumEventAgeSeconds: number; maximumRetryAttempts: number };
}

/**
 * How a target put fails, as Scheduler reports it in a dead letter's
 * ERROR_CODE and ERROR_MESSAGE; `retryable`: whether Scheduler tries it again
 * (throttling, a 5xx) or gives up at once (access denied, a missing queue).
 */
export interface TargetFault {
  code: string;
  message: string;
  retryable: boolean;
}

export interface LocalScheduler extends LocalService {
  schedules(): LocalSchedule[];
  /** Fires every schedule due at `now`; returns the names fired, whether their target took the input or not. */
  fireDue(now?: Date): Promise<string[]>;
  /**
   * Makes the next `times` target puts (every one, by default) fail with
   * `fault` before they reach SQS; undefined puts them through again. For
   * faults a local SQS cannot produce on demand: the role's grant or the
   * queue's key broken, SQS throttling.
   */
  failTargetPuts(fault: TargetFault | undefined, times?: number): void;
}

const AT = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

async function readJson(request: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, any>) : {};
}

function reply(response: ServerResponse, status: number, body: Record<string, unknown>, errorType?: string): void {
  response.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
  response.end(JSON.stringify(errorType ? { Message: body.message } : body));
}

/** What a schedule's Target says, as the stand-in keeps it; Scheduler's defaults where it says nothing. */
function targetOf(target: Record<string, any>): Pick<LocalSchedule, 'target' | 'retry'> {
  const retry = target.RetryPolicy ?? {};
  return {
    target: { arn: target.Arn, input: String(target.Input ?? ''), ...(target.DeadLetterConfig?.Arn ? { deadLetterArn: target.DeadLetterConfig.Arn } : {}) },
    retry: {
      maximumEventAgeSeconds: retry.MaximumEventAgeInSeconds ?? DEFAULT_RETRY.maximumEventAgeSeconds,
      maximumRetryAttempts: retry.MaximumRetryAttempts ?? DEFAULT_RETRY.maximumRetryAttempts,
    },
  };
}

const scheduleArn = (name: string) => `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`;

/** A string message attribute, as Scheduler writes every one of a dead letter's. */
const attribute = (value: string) => ({ DataType: 'String', StringValue: value });

/** Which of its retry policy's limits a failed invocation has reached after `retries` retries, if any. */
function exhaustedCondition(schedule: LocalSchedule, retries: number, now: Date): 'MaximumRetryAttempts' | 'MaximumEventAgeInSeconds' | undefined {
  if (retries >= schedule.retry.maximumRetryAttempts) return 'MaximumRetryAttempts';
  if ((now.getTime() - schedule.at.getTime()) / 1000 >= schedule.retry.maximumEventAgeSeconds) return 'MaximumEventAgeInSeconds';
  return undefined;
}

let running: LocalScheduler | undefined;

/** The stand-in this process started, for tests that fire schedules at a time of their choosing. */
export function localScheduler(): LocalScheduler {
  if (!running) throw new Error('no local scheduler is running in this process');
  return running;
}

/** Starts the stand-in on 127.0.0.1 (port 0: a free one); `tickMs` fires due schedules on a timer, as `npm start` wants. */
export async function startLocalScheduler(options: { port: number; sqsEndpoint: string; tickMs?: number; host?: string }): Promise<LocalScheduler> {
  const schedules = new Map<string, LocalSchedule>();
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: options.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  let injected: { fault: TargetFault; left: number } | undefined;
  const server = createServer((request, response) => {
    void (async () => {
      const name = decodeURIComponent((request.url ?? '').split('?')[0]!.replace(/^\/schedules\//, ''));
      const input = await readJson(request);
      if (request.method === 'DELETE') {
        if (!schedules.delete(name)) return reply(response, 404, { message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        return reply(response, 200, {});
      }
      const at = AT.exec(String(input.ScheduleExpression ?? ''))?.[1];
      if (!at || !input.Target?.Arn)
        return reply(response, 400, { message: 'Only at(...) schedules with a target are supported locally' }, 'ValidationException');
      if (request.method === 'POST' && schedules.has(name)) return reply(response, 409, { message: `Schedule ${name} already exists.` }, 'ConflictException');
      if (request.method === 'PUT' && !schedules.has(name))
        return reply(response, 404, { message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
      schedules.set(name, { name, at: new Date(`${at}Z`), ...targetOf(input.Target) });
      return reply(response, 200, { ScheduleArn: scheduleArn(name) });
    })().catch((error: unknown) => reply(response, 500, { message: String(error) }, 'InternalServerException'));
  });
  const service = await listenLocally(server, options.port, options.host ?? '127.0.0.1');

  /** Puts `body` on the queue the ARN names; undefined when SQS took it, else the fault as Scheduler would report it. */
  const put = async (
    queueArn: string,
    body: string,
    attributes?: Record<string, { DataType: string; StringValue: string }>,
  ): Promise<TargetFault | undefined> => {
    try {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueArn.split(':').pop()! }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, ...(attributes ? { MessageAttributes: attributes } : {}) }));
      return undefined;
    } catch (error) {
      const { name, message } = error as Error;
      return name === 'QueueDoesNotExist'
        ? { code: 'AWS.SimpleQueueService.NonExistentQueue', message, retryable: false }
        : { code: name, message, retryable: true };
    }
  };
  const putTarget = (schedule: LocalSchedule): Promise<TargetFault | undefined> => {
    if (injected && injected.left > 0) {
      injected.left -= 1;
      return Promise.resolve(injected.fault);
    }
    return put(schedule.target.arn, schedule.target.input);
  };
  /** The target's attempts under its retry policy; the dead letter (or nothing) once they are spent. */
  const invoke = async (schedule: LocalSchedule, now: Date): Promise<void> => {
    for (let retries = 0; ; retries++) {
      const fault = await putTarget(schedule);
      if (!fault) return;
      const exhausted = fault.retryable ? exhaustedCondition(schedule, retries, now) : undefined;
      if (fault.retryable && !exhausted) continue;
      if (!schedule.target.deadLetterArn) return;
      // Every attribute a dead letter carries, all strings; EXHAUSTED_RETRY_CONDITION only when retries ran out.
      await put(schedule.target.deadLetterArn, schedule.target.input, {
        ERROR_CODE: attribute(fault.code),
        ERROR_MESSAGE: attribute(fault.message),
        EXECUTION_ID: attribute(randomBytes(8).toString('hex')),
        ...(exhausted ? { EXHAUSTED_RETRY_CONDITION: attribute(exhausted) } : {}),
        IS_PAYLOAD_TRUNCATED: attribute('false'),
        RETRY_ATTEMPTS: attribute(String(retries)),
        SCHEDULED_TIME: attribute(`${schedule.at.toISOString().slice(0, 19)}Z`),
        SCHEDULE_ARN: attribute(scheduleArn(schedule.name)),
        TARGET_ARN: attribute(schedule.target.arn),
      });
      return;
    }
  };
  const fireDue = async (now = new Date()): Promise<string[]> => {
    const due = [...schedules.values()].filter((schedule) => schedule.at <= now);
    for (const schedule of due) {
      schedules.delete(schedule.name);
      await invoke(schedule, now);
    }
    return due.map((schedule) => schedule.name);
  };
  const timer = options.tickMs ? setInterval(() => void fireDue().catch(() => undefined), options.tickMs) : undefined;
  running = {
    endpoint: service.endpoint,
    schedules: () => [...schedules.values()],
    fireDue,
    failTargetPuts: (fault, times = Number.POSITIVE_INFINITY) => {
      injected = fault ? { fault, left: times } : undefined;
    },
    stop: async () => {
      if (timer) clearInterval(timer);
      running = undefined;
      await service.stop();
    },
  };
  return running;
}
