// What this install knows of where an agent's deliveries go, in the words every shell shows; the
// question asked before taking over; the URL "restore" goes back to.
import { describe, expect, it } from 'vitest';
import {
  describeRegistration,
  previousRegistration,
  takeoverQuestion,
  when,
} from '../../../../src-main/app/usecases/registration-status';
import { registerAgentWebhook } from '../../../../src-main/app/usecases/webhooks';
import { RegistrationsInFlight, type RegistrationRecord } from '../../../../src-main/core/tunnel';
import { RegistrationHistory } from '../../../../src-main/core/tunnel/registration-history';
import { tempDir } from '../../core/tunnel/helpers';

const NOW = new Date(2026, 10, 27, 11, 0).getTime();
const AT = new Date(2026, 10, 27, 10, 42).getTime();
const LOCAL = 'http://127.0.0.1:4555/hooks/a1';
const PUBLIC = 'https://abc.ngrok.app/hooks/a1';
const rec = (o: Partial<RegistrationRecord>): RegistrationRecord => ({
  teamId: 't1',
  agentId: 'a1',
  url: LOCAL,
  at: AT,
  source: 'listen --register-url',
  target: 'receiver',
  ...o,
});

describe('describeRegistration', () => {
  it('none by this install: unknown, and says so', () => {
    expect(describeRegistration(null, { local: LOCAL, public: null }, NOW)).toEqual({
      state: 'unknown',
      text: 'unknown: the service cannot tell us; another app may be receiving',
      last: null,
    });
  });

  it("the last one is this receiver's local or public hook URL: registered here", () => {
    expect(describeRegistration(rec({}), { local: LOCAL, public: null }, NOW).text).toBe(
      'registered here at 10:42 (this receiver)',
    );
    expect(
      describeRegistration(rec({ url: PUBLIC, target: 'exposure' }), { local: LOCAL, public: PUBLIC }, NOW),
    ).toMatchObject({ state: 'here', text: "registered here at 10:42 (this receiver's public URL)" });
  });

  it('the last one is another URL: registered by this install to it, with the day when not today', () => {
    const s = describeRegistration(
      rec({
        url: 'https://prod.example/hook',
        target: 'other',
        source: 'webhook set',
        at: new Date(2026, 10, 26, 9, 5).getTime(),
      }),
      { local: LOCAL, public: null },
      NOW,
    );
    expect(s).toMatchObject({
      state: 'elsewhere',
      text: 'registered by this install to https://prod.example/hook on 2026-11-26 09:05 (webhook set)',
    });
  });

  it('another URL registered by a member through the team hub: says who, not "this install"', () => {
    const s = describeRegistration(
      rec({ url: 'https://prod.example/hook', target: 'other', source: 'hub', registeredBy: 'ada' }),
      { local: LOCAL, public: null },
      NOW,
    );
    expect(s).toMatchObject({
      state: 'elsewhere',
      text: 'registered by ada through the team hub to https://prod.example/hook at 10:42',
    });
    const q = takeoverQuestion('a1', PUBLIC, s.last, NOW);
    expect(q).toContain(
      'https://prod.example/hook (registered by ada through the team hub, 10:42) stops receiving its deliveries',
    );
    expect(q).not.toContain('this install');
  });

  it('a registration of this receiver that no longer reaches it (port changed, exposure gone): stale, register again', () => {
    const moved = describeRegistration(rec({}), { local: 'http://127.0.0.1:4999/hooks/a1', public: null }, NOW);
    expect(moved.state).toBe('stale');
    expect(moved.text).toBe(
      `registered here at 10:42 to ${LOCAL}, which no longer reaches this receiver (the receiver now listens at http://127.0.0.1:4999/hooks/a1): register again`,
    );
    const gone = describeRegistration(rec({ url: PUBLIC, target: 'exposure' }), { local: LOCAL, public: null }, NOW);
    expect(gone).toMatchObject({ state: 'stale' });
    expect(gone.text).toContain('the receiver is not exposed now');
  });

  it('when(): the time today, the day and time otherwise', () => {
    expect(when(AT, NOW)).toBe('10:42');
    expect(when(new Date(2025, 0, 2, 3, 4).getTime(), NOW)).toBe('2025-01-02 03:04');
  });
});

describe('takeoverQuestion', () => {
  it('names the URL that stops receiving when this install knows it, and the new signing secret', () => {
    const q = takeoverQuestion(
      'a1',
      PUBLIC,
      rec({ url: 'https://prod.example/hook', target: 'other', source: 'webhook set' }),
      NOW,
    );
    expect(q).toContain(`Point the webhook of a1 at ${PUBLIC}?`);
    expect(q).toContain(
      'https://prod.example/hook (registered by this install, 10:42, webhook set) stops receiving its deliveries',
    );
    expect(q).toContain('The service issues a new signing secret; the previous one stops working.');
  });

  it('with no registration by this install: says another app may be receiving', () => {
    expect(takeoverQuestion('a1', PUBLIC, null, NOW)).toMatch(
      /the service cannot tell us which, and another app \(the team's own, say\) may be receiving them/,
    );
  });
});

describe('previousRegistration', () => {
  it('the newest entry with a URL other than the last one', () => {
    const entries = [rec({ url: 'u3', at: 3 }), rec({ url: 'u3', at: 2 }), rec({ url: 'u1', at: 1 })];
    expect(previousRegistration(entries)?.url).toBe('u1');
    expect(previousRegistration([rec({ url: 'u3' })])).toBeNull();
    expect(previousRegistration([])).toBeNull();
  });
});

describe('registerAgentWebhook with a history and a receiver', () => {
  it('tells the receiver while the registration is in flight, and records it once it succeeded (never the secret)', async () => {
    const { dir, cleanup } = await tempDir('usecase-');
    try {
      const history = RegistrationHistory.in(dir, () => AT);
      const inFlight = new RegistrationsInFlight();
      const seen: boolean[] = [];
      const client = {
        async setWebhook(_a: string, url: string) {
          seen.push(inFlight.inFlight('a1'));
          return { mode: 'passthrough' as const, url, secret: 'whsec_0123456789abcdef0123456789abcdef' };
        },
      };
      const r = await registerAgentWebhook({
        client,
        agentId: 'a1',
        url: PUBLIC,
        keepSecret: async () => void seen.push(inFlight.inFlight('a1')),
        inFlight,
        history: { store: history, teamId: 't1', source: 'listen --expose', target: 'exposure' },
      });
      expect(seen).toEqual([true, true]);
      expect(inFlight.inFlight('a1')).toBe(false);
      expect(r.historyProblem).toBeNull();
      expect((await history.list('t1', 'a1')).entries).toEqual([
        { teamId: 't1', agentId: 'a1', url: PUBLIC, at: AT, source: 'listen --expose', target: 'exposure' },
      ]);

      const failing = { setWebhook: async () => Promise.reject(new Error('service down')) };
      await expect(
        registerAgentWebhook({
          client: failing,
          agentId: 'a1',
          url: 'https://z.example/h',
          keepSecret: async () => undefined,
          inFlight,
          history: { store: history, teamId: 't1', source: 'webhook set', target: 'other' },
        }),
      ).rejects.toThrow('service down');
      expect(inFlight.inFlight('a1')).toBe(false);
      expect((await history.list('t1', 'a1')).entries).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });
});
