/**
 * Structured JSON logs. Errors are reduced to name, message and stack: SDK
 * errors carry request payloads (`cause.data`, `$response`) that may hold keys
 * or email content, and those never reach a log.
 */
type Fields = Record<string, unknown>;

/** Anything shaped like an API key is masked, wherever in the entry it hides (a message, a stack). */
const API_KEY = /svc_(live|test)_[0-9A-Za-z]+/g;

function describe(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  const entry: Fields = { level, message, time: new Date().toISOString() };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) entry[key] = describe(value);
  }
  (level === 'error' ? console.error : console.log)(JSON.stringify(entry).replace(API_KEY, 'svc_$1_[redacted]'));
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};
