/**
 * Warm latency and throughput through the API server (a child process) under
 * concurrent load from autocannon. Requests rotate over many keys of one
 * account: the per-key rate limit (200 per second on `business`) is a product
 * rule, not the server's capacity, and a run of 429s would measure nothing.
 */
import autocannon from 'autocannon';
import { call } from './stack.ts';

export interface LoadResult {
  name: string;
  connections: number;
  durationSeconds: number;
  requests: number;
  /** Requests per second, mean over the run. */
  throughput: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than the expected status, and connection errors. */
  failures: number;
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Called for every request: a path, a key and a body of its own (new emails for creates). */
  next(): { path: string; key?: string; body?: unknown };
}

export interface LoadOptions {
  connections: number;
  /** Either a duration or a fixed number of requests (where limits per window bound how many make sense). */
  durationSeconds?: number;
  amount?: number;
}

/** Requests before the measured run: the server loads the handler module on its first call. */
const WARM_UP_REQUESTS = 3;

export async function runLoad(url: string, name: string, request: LoadRequest, options: LoadOptions): Promise<LoadResult> {
  for (let index = 0; index < WARM_UP_REQUESTS; index++) {
    const { path, key, body } = request.next();
    await call(url, request.method, path, { ...(key ? { key } : {}), body });
  }
  const result = await autocannon({
    url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    requests: [
      {
        method: request.method,
        setupRequest: (req) => {
          const { path, key, body } = request.next();
          const headers = { ...req.headers };
          if (key) headers['x-api-key'] = key;
          if (body !== undefined) headers['content-type'] = 'application/json';
          return { ...req, path, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
        },
      },
    ],
  });
  return {
    name,
    connections: options.connections,
    durationSeconds: result.duration,
    requests: result.requests.total,
    throughput: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
