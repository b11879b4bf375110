// The API key never goes in clear to another machine: a plain http:// base URL is refused unless it
// is loopback or the person allowed it explicitly.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../../../src-main/core/api/client';
import { InvalidRequest } from '../../../../src-main/core/api/errors';
import type { ServiceClient } from '../../../../src-main/core/api/service';
import { insecureKeyProblem, isLoopbackHost } from '../../../../src-main/core/url';

const KEY = 'sk-insecure-test-1234';
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    '127.0.0.1',
    '127.8.9.10',
    '[::1]',
    '::1',
    '[::ffff:7f00:1]',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each([
    'example.com',
    '10.0.0.1',
    '128.0.0.1',
    '[::2]',
    '192.168.1.127',
    'localhost.example.com',
    '[::ffff:a00:1]',
    '127.0.0.256',
    '127.1',
  ])('%s is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('the key over plain http', () => {
  // A *.localhost name would be resolved like any other (nothing pins it to 127.0.0.1): the key
  // could go wherever a resolver sends it.
  it.each([
    'http://api.example.com',
    'http://10.0.0.5:8787',
    'http://[2001:db8::1]',
    'http://app.localhost:8787',
    'http://evil.localhost',
  ])('%s is refused with a clear message, before any request', (baseUrl) => {
    const dispatcher = new MockAgent();
    dispatcher.disableNetConnect();
    let err: unknown;
    try {
      client = createServiceClient({ baseUrl, apiKey: KEY, dispatcher });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequest);
    expect(err).toMatchObject({
      code: 'INSECURE_HTTP',
      message: expect.stringMatching(/unencrypted .*https:\/\/.*allow plain HTTP/),
    });
    expect((err as Error).message).not.toContain(KEY);
    expect(insecureKeyProblem(baseUrl)).not.toBeNull();
  });

  it.each(['http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:9', 'https://api.example.com'])(
    '%s is fine',
    (baseUrl) => {
      client = createServiceClient({ baseUrl, apiKey: KEY });
      expect(client.baseUrl).toBe(baseUrl.replace(/\/$/, ''));
    },
  );

  it('allowInsecureHttp sends it anyway (the person chose so)', async () => {
    const dispatcher = new MockAgent();
    dispatcher.disableNetConnect();
    let auth = '';
    dispatcher
      .get('http://api.example.com')
      .intercept({ method: 'GET', path: '/api/v1/agents/a/whatsapp/session' })
      .reply((o) => {
        auth = String((o.headers as Record<string, string>).authorization);
        return {
          statusCode: 200,
          data: '{"connected":true}',
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      });
    client = createServiceClient({
      baseUrl: 'http://api.example.com',
      apiKey: KEY,
      dispatcher,
      allowInsecureHttp: true,
    });
    expect(await client.getSession('a')).toMatchObject({ connected: true });
    expect(auth).toBe(`Bearer ${KEY}`);
  });
});
