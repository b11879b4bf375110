// The contact check path (ASSUMPTION A-CONTACT-PATH): the number goes as `to` is sent (+,
// percent-encoded); a service that refuses that form (400/404/422) is asked once in the other form,
// and the form that worked is remembered per base URL.
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidRequest, NotFound } from '../../../../src-main/core/api/errors';
import type { ContactPathForm } from '../../../../src-main/core/api/service';
import { setup } from './mock';

const A = '/api/v1/agents/agent-1/whatsapp/contacts';
const PLUS = `${A}/%2B15550102000`;
const DIGITS = `${A}/15550102000`;
const FOUND = { phone: '15550102000', exists: true, jid: '15550102000@s.whatsapp.net' };
let env: ReturnType<typeof setup> | undefined;
afterEach(async () => {
  await env?.agent.close();
  env = undefined;
});

describe('checkContact path forms', () => {
  it.each([400, 404, 422])(
    'a %i to the + form is asked once as bare digits, and the digits form is kept',
    async (status) => {
      const forms = new Map<string, ContactPathForm>();
      env = setup({ contactPathForms: forms });
      env.answer('GET', PLUS, status, { error: { code: 'INVALID_PHONE', message: 'digits only' } });
      env.answer('GET', DIGITS, 200, FOUND);
      env.answer('GET', DIGITS, 200, FOUND);
      expect(await env.client.checkContact('agent-1', '+15550102000')).toEqual(FOUND);
      expect(env.captured.map((c) => c.path)).toEqual([PLUS, DIGITS]);
      expect(forms.get('https://svc.test')).toBe('digits');
      // The next check goes straight to the form that worked.
      expect(await env.client.checkContact('agent-1', '15550102000')).toEqual(FOUND);
      expect(env.captured.map((c) => c.path)).toEqual([PLUS, DIGITS, DIGITS]);
    },
  );

  it('a service that takes + keeps +; one that then refuses digits is asked with + again', async () => {
    const forms = new Map<string, ContactPathForm>([['https://svc.test', 'digits']]);
    env = setup({ contactPathForms: forms });
    env.answer('GET', DIGITS, 404, undefined);
    env.answer('GET', PLUS, 200, FOUND);
    expect(await env.client.checkContact('agent-1', '15550102000')).toEqual(FOUND);
    expect(forms.get('https://svc.test')).toBe('plus');
  });

  it('when both forms are refused, the first answer is the error; nothing is remembered', async () => {
    const forms = new Map<string, ContactPathForm>();
    env = setup({ contactPathForms: forms });
    env.answer('GET', PLUS, 404, { error: { code: 'AGENT_NOT_FOUND', message: 'no agent' } });
    env.answer('GET', DIGITS, 400, { error: { code: 'INVALID_PHONE', message: 'bad' } });
    const e = await env.client.checkContact('agent-1', '+15550102000').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFound);
    expect(forms.size).toBe(0);
  });

  it('other failures are not asked again in the other form', async () => {
    env = setup({ contactPathForms: new Map() });
    env.answer('GET', PLUS, 401, { error: { code: 'UNAUTHORIZED', message: 'key' } });
    await expect(env.client.checkContact('agent-1', '+15550102000')).rejects.toMatchObject({ kind: 'key-rejected' });
    expect(env.captured).toHaveLength(1);
  });

  it('a number that is not a number is refused before any request', async () => {
    env = setup({ contactPathForms: new Map() });
    await expect(env.client.checkContact('agent-1', 'call me')).rejects.toBeInstanceOf(InvalidRequest);
    expect(env.captured).toHaveLength(0);
  });
});
