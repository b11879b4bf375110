// Validate + route: one handler per contract request. Each parses its raw args with the request's
// zod schema first (bad input runs nothing), runs the request's implementation, and answers a
// Result envelope: errors never throw across IPC/HTTP, they cross as ErrorDTO.
import type { ArgsOf, RequestName, Result, ResultOf } from '../../src-shared/contract';
import { REQUEST_NAMES } from '../../src-shared/contract';
import { toErrorDTO, zodToDTO } from './errors';
import { ruleWords } from '../core/input-words';
import { argFieldNames, argSchemas } from './schemas';

type Handler<K extends RequestName> = (rawArgs: unknown) => Promise<Result<ResultOf<K>>>;
export type Handlers = { [K in RequestName]: Handler<K> };

/** What each request does, given args that passed validation (src-main/app/contract implements it over the companion). */
export type Implementations = { [K in RequestName]: (args: ArgsOf<K>) => Promise<ResultOf<K>> };

export function createHandlers(impl: Implementations): Handlers {
  const out = {} as Record<RequestName, (raw: unknown) => Promise<Result<unknown>>>;
  for (const name of REQUEST_NAMES) {
    const schema = argSchemas[name];
    const run = impl[name] as (args: unknown) => Promise<unknown>;
    out[name] = async (raw) => {
      const parsed = schema.safeParse(raw === undefined ? {} : raw, { error: ruleWords });
      if (!parsed.success) return { ok: false, error: zodToDTO(parsed.error, argFieldNames[name]) };
      try {
        return { ok: true, value: await run(parsed.data) };
      } catch (e) {
        return { ok: false, error: toErrorDTO(e) };
      }
    };
  }
  return out as Handlers;
}
