/**
 * One HTTP POST of a delivery. Connects to the address url-safety.ts checked
 * (the `lookup` below answers it, so no second DNS query can change it), sends
 * TLS SNI and checks the certificate for the URL's host as usual, follows no
 * redirect (node:http never does: a 3xx is a failed attempt), and gives up
 * after DELIVERY_TIMEOUT_MS, so a slow receiver holds one worker slot at most
 * that long and never the API.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { DELIVERY_TIMEOUT_MS } from './schedule.ts';
import type { ResolvedAddress } from './url-safety.ts';

export interface PostResult {
  /** The receiver's status, when it answered in time. */
  statusCode?: number;
  /** Why there is no status (timeout, refused connection, TLS). */
  error?: string;
  durationMs: number;
}

/** Answers the checked address whatever is asked, in the shape `all` asks for. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/** Receivers answer with a status; their body is never read past this. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function postWebhook(
  url: URL,
  target: ResolvedAddress,
  body: string,
  headers: Record<string, string>,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const options: RequestOptions = {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Postlane-Webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
    lookup: pinnedLookup(target),
    // A socket of its own: a pooled one could have been opened for another check.
    agent: false,
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(url, options, (response) => {
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) response.destroy();
      });
      response.on('error', () => {});
      resolve({ statusCode: response.statusCode ?? 0, durationMs: elapsed() });
      response.resume();
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (error) => resolve({ error: error.message, durationMs: elapsed() }));
    request.end(body);
  });
}
