/**
 * Which function an in-process invocation stands for. Deployed, each handler
 * is its own Lambda with its own role; locally and in tests they share one
 * process, so whatever wants to attribute work to a function (the tests'
 * record of AWS calls, checked against each function's role) reads it here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const invocation = new AsyncLocalStorage<string>();

/** Runs `work` as an invocation of `functions/<handler>.ts`: `asInvocationOf('contacts/get', () => fn(event, context))`. */
export function asInvocationOf<T>(handler: string, work: () => T): T {
  return invocation.run(handler, work);
}

/** The handler module of the invocation in progress, or undefined outside one (test setup, the admin CLI). */
export function currentHandler(): string | undefined {
  return invocation.getStore();
}

/** Runs `work` outside any invocation: for local stand-ins whose own calls have no deployed counterpart. */
export function outsideInvocation<T>(work: () => T): T {
  return invocation.exit(work);
}

/** `fn`, each call run as an invocation of `handler`: `invokedAs('feedback/ses-events', handler)(event)`. */
export function invokedAs<A extends unknown[], R>(handler: string, fn: (...args: A) => R): (...args: A) => R {
  return (...args) => asInvocationOf(handler, () => fn(...args));
}
