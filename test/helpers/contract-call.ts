// Calling the contract's handlers in tests: call() answers the Result, ok() its value (or throws
// with the error's kind, code and message).
import type { RequestName, Result } from '../../src-shared/contract';
import type { Handlers } from '../../src-main/app/handlers';

export function contractCaller(handlers: () => Handlers) {
  async function call(name: RequestName, args: unknown = {}): Promise<Result<unknown>> {
    return (handlers()[name] as (a: unknown) => Promise<Result<unknown>>)(args);
  }
  async function ok<T = unknown>(name: RequestName, args: unknown = {}): Promise<T> {
    const r = await call(name, args);
    if (!r.ok) throw new Error(`${name}: ${r.error.kind} ${r.error.code} ${r.error.message}`);
    return r.value as T;
  }
  return { call, ok };
}
