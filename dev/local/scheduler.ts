/**
 * An EventBridge Scheduler stand-in for `npm start` and the tests: the
 * REST-JSON calls the SDK's SchedulerClient makes for broadcasts
 * (CreateSchedule, UpdateSchedule, DeleteSchedule), in memory, for one-time
 * `at(…)` schedules whose target is an SQS queue. A due schedule puts its
 * input on the queue (found by the ARN's name in the local SQS) and, with
 * ActionAfterCompletion DELETE, goes away, as Scheduler does. `npm start` lets
 * a timer fire them; tests call `fireDue` with the time they want.
 */
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocally, type LocalService } from './service.ts';

export interface LocalSchedule {
  name: string;
  at: Date;
  target: { arn: string; input: string };
}

export interface LocalScheduler extends LocalService {
  schedules(): LocalSchedule[];
  /** Fires every schedule due at `now`; returns the names fired. */
  fireDue(now?: Date): Promise<string[]>;
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
      schedules.set(name, { name, at: new Date(`${at}Z`), target: { arn: input.Target.Arn, input: String(input.Target.Input ?? '') } });
      return reply(response, 200, { ScheduleArn: `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}` });
    })().catch((error: unknown) => reply(response, 500, { message: String(error) }, 'InternalServerException'));
  });
  const service = await listenLocally(server, options.port, options.host ?? '127.0.0.1');
  const fireDue = async (now = new Date()): Promise<string[]> => {
    const due = [...schedules.values()].filter((schedule) => schedule.at <= now);
    for (const schedule of due) {
      schedules.delete(schedule.name);
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: schedule.target.arn.split(':').pop()! }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: schedule.target.input }));
    }
    return due.map((schedule) => schedule.name);
  };
  const timer = options.tickMs ? setInterval(() => void fireDue().catch(() => undefined), options.tickMs) : undefined;
  running = {
    endpoint: service.endpoint,
    schedules: () => [...schedules.values()],
    fireDue,
    stop: async () => {
      if (timer) clearInterval(timer);
      running = undefined;
      await service.stop();
    },
  };
  return running;
}
