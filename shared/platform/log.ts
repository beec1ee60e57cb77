/**
 * Structured JSON logs, one object a line. Errors are reduced to name, message
 * and stack: SDK errors carry request payloads (`cause.data`, `$response`) that
 * may hold keys or email content, and those never reach a log.
 *
 * Every line written while a request is handled also carries that request's
 * context (`requestId`, and `accountId` once the key is known), however deep in
 * the domain code the line is written: see `withLogContext`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Console } from 'node:console';

type Fields = Record<string, unknown>;

/** Anything shaped like an API key is masked, wherever in the entry it hides (a message, a stack). */
const API_KEY = /svc_(live|test)_[0-9A-Za-z]+/g;

/**
 * An email address keeps only its domain: recipients are personal data, and an
 * SDK or validation message can quote one. The domain is enough to tell which
 * sender or mailbox provider a problem concerns.
 */
const EMAIL_ADDRESS = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})/g;

/**
 * Lambda's Node runtime patches the global console to prefix each line with a
 * timestamp, request id and level, which turns a JSON line into text that
 * CloudWatch Logs Insights and metric filters no longer read as JSON. There a
 * console of our own writes the line as it is; elsewhere (local server, tests)
 * the global console is unpatched, and tests can capture it.
 */
let output: Console = process.env.AWS_LAMBDA_FUNCTION_NAME ? new Console({ stdout: process.stdout, stderr: process.stderr }) : console;

/**
 * Sends every later line, errors included, to `stream` instead: `npm start`
 * keeps its terminal for its own startup lines and writes the service's log to
 * a file (an access line per request would bury them).
 */
export function writeLogTo(stream: NodeJS.WritableStream): void {
  output = new Console({ stdout: stream, stderr: stream });
}

const requestContext = new AsyncLocalStorage<Fields>();

/**
 * Runs `fn` with `fields` added to every line it logs, across awaits, and
 * only there: concurrent requests in one process keep their own fields.
 *
 * `withLogContext({ requestId }, () => handler(event, context))`
 */
export function withLogContext<T>(fields: Fields, fn: () => T): T {
  return requestContext.run({ ...fields }, fn);
}

/** Adds fields to the context of the request being handled (the account, once authenticated); outside one it does nothing. */
export function addLogContext(fields: Fields): void {
  const store = requestContext.getStore();
  if (store) Object.assign(store, fields);
}

function describe(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** One log line as written: JSON, with keys and email addresses masked. */
function formatEntry(level: 'info' | 'warn' | 'error', message: string, fields: Fields): string {
  const entry: Fields = { level, message, time: new Date().toISOString() };
  for (const [key, value] of Object.entries({ ...requestContext.getStore(), ...fields })) {
    if (value !== undefined) entry[key] = describe(value);
  }
  return JSON.stringify(entry).replace(API_KEY, 'svc_$1_[redacted]').replace(EMAIL_ADDRESS, '[redacted]@$1');
}

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  (level === 'error' ? output.error : output.log)(formatEntry(level, message, fields));
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};
