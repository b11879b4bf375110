// Type-level tests of the contract (checked by tsc) plus the runtime name lists.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ServiceErrorKind } from '../../../src-main/core/api/errors';
import type { Handlers } from '../../../src-main/app/handlers';
import { argSchemas } from '../../../src-main/app/schemas';
import {
  EVENT_NAMES,
  REQUEST_NAMES,
  type Api,
  type ErrorKind,
  type EventName,
  type Events,
  type RequestName,
  type ArgsOf,
  type ResultOf,
  type Result,
  type TeamDTO,
} from '../../../src-shared/contract';

describe('contract', () => {
  it('lists every request and event name exactly once', () => {
    expect(new Set(REQUEST_NAMES).size).toBe(REQUEST_NAMES.length);
    expect(new Set(EVENT_NAMES).size).toBe(EVENT_NAMES.length);
    expectTypeOf<(typeof REQUEST_NAMES)[number]>().toEqualTypeOf<RequestName>();
    expectTypeOf<(typeof EVENT_NAMES)[number]>().toEqualTypeOf<EventName>();
    expect(Object.keys(argSchemas).sort()).toEqual([...REQUEST_NAMES].sort());
  });

  it('ErrorKind covers every ServiceErrorKind', () => {
    expectTypeOf<ServiceErrorKind>().toExtend<ErrorKind>();
    expectTypeOf<'validation' | 'keychain' | 'internal' | 'forbidden'>().toExtend<ErrorKind>();
  });

  it('no DTO carries an API key or a secret', () => {
    expectTypeOf<'apiKey' extends keyof TeamDTO ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<'secret' extends keyof ResultOf<'webhook.register'> ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<
      'apiKey' | 'secret' | 'url' extends keyof ResultOf<'tunnel.media'> ? true : false
    >().toEqualTypeOf<false>();
  });

  it('settings: installId is read, never patched; the new requests are listed and typed', () => {
    expectTypeOf<ResultOf<'settings.get'>['installId']>().toEqualTypeOf<string>();
    expectTypeOf<'installId' extends keyof ArgsOf<'settings.update'>['patch'] ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<ArgsOf<'settings.update'>['patch']['theme']>().toEqualTypeOf<
      'system' | 'light' | 'dark' | undefined
    >();
    expectTypeOf<ArgsOf<'health.history'>>().toEqualTypeOf<{ teamId: string; agentId: string }>();
    expectTypeOf<ResultOf<'tunnel.media'>>().toEqualTypeOf<{
      filename: string;
      mimeType: string;
      bytes: number;
      dataBase64: string;
    }>();
    expectTypeOf<Events['send.progress']['queuedId']>().toEqualTypeOf<string | undefined>();
    expect(REQUEST_NAMES).toContain('health.history');
    expect(REQUEST_NAMES).toContain('alerts.history');
    expect(REQUEST_NAMES).toContain('health.availability');
    expect(REQUEST_NAMES).toContain('tunnel.media');
  });

  it('Handlers is exactly one Result-returning function per request', () => {
    expectTypeOf<keyof Handlers>().toEqualTypeOf<RequestName>();
    expectTypeOf<ReturnType<Handlers['teams.list']>>().toEqualTypeOf<Promise<Result<TeamDTO[]>>>();

    const { 'teams.list': _dropped, ...partial } = {} as Handlers;
    // @ts-expect-error a handler map missing an entry is not a Handlers
    const _missing: Handlers = partial;

    const wrong = {} as Omit<Handlers, 'teams.list'> & { 'teams.list': () => Promise<Result<string>> };
    // @ts-expect-error a handler with the wrong result shape is not a Handlers
    const _wrongShape: Handlers = wrong;
  });

  it('Api has one function per request plus on(), and on() passes only the payload', () => {
    expectTypeOf<Exclude<keyof Api, 'on'>>().toEqualTypeOf<RequestName>();
    expectTypeOf<Parameters<Api['teams.add']>[0]>().toEqualTypeOf<ArgsOf<'teams.add'>>();
    expectTypeOf<Api['teams.list']>().toBeCallableWith();
    type OnHealth = (e: 'health.changed', cb: (p: Events['health.changed']) => void) => () => void;
    expectTypeOf<Api['on']>().toExtend<OnHealth>();
    expectTypeOf<Parameters<Parameters<OnHealth>[1]>>().toEqualTypeOf<[Events['health.changed']]>();
  });
});
