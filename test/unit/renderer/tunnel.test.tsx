// @vitest-environment jsdom
// The tunnel inspector over a fake Api: the receiver, exposure and hook URLs on top (copy,
// one-click registration), panels, the request list (deliveries and refused requests, filters,
// search here and in the log, keys) and the selected request in full.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  DeliveryDetailDTO,
  DeliverySummaryDTO,
  ExposureDTO,
  RefusedRequestDTO,
  RegistrationStatusDTO,
  Result,
  TeamDTO,
  TunnelStatusDTO,
} from '../../../src-shared/contract';
import { Inspector } from '../../../src-renderer/src/features/tunnel/Inspector';
import { TunnelScreen } from '../../../src-renderer/src/features/tunnel/TunnelScreen';
import { matches, NO_FILTER, rowsOf } from '../../../src-renderer/src/features/tunnel/requests';
import { downSince } from '../../../src-renderer/src/features/tunnel/verdict';
import { connectStore } from '../../../src-renderer/src/store';
import { agent as agentDTO, flush, mount, setup as storeSetup } from './fixtures';

const exposureOff: ExposureDTO = {
  state: 'off',
  kind: null,
  url: null,
  since: 0,
  error: null,
  registrations: [],
  ngrokAuthtoken: { stored: false, hint: null },
};
const LISTEN = 'http://127.0.0.1:4555';

const UNKNOWN = 'unknown: the service cannot tell us; another app may be receiving';
const TAKEOVER_UNKNOWN =
  'The service keeps one webhook URL per agent. Whatever URL it has now stops receiving its deliveries. The service issues a new signing secret; the previous one stops working.';
const elsewhere: RegistrationStatusDTO = {
  state: 'elsewhere',
  text: 'registered by this install to https://pub.example.test/hooks/a1 on 2026-11-26 09:05 (webhook set)',
  last: { url: 'https://pub.example.test/hooks/a1', at: 1_700_000_000_000, source: 'webhook set', target: 'other' },
  takeover:
    'The service keeps one webhook URL per agent. https://pub.example.test/hooks/a1 (registered by this install) stops receiving its deliveries. The service issues a new signing secret; the previous one stops working.',
};
const unknown: RegistrationStatusDTO = { state: 'unknown', text: UNKNOWN, last: null, takeover: TAKEOVER_UNKNOWN };

const status: TunnelStatusDTO = {
  running: true,
  listenUrl: LISTEN,
  forwardTo: 'http://127.0.0.1:3000/hook',
  agents: [
    {
      teamId: 'team1',
      agentId: 'a1',
      publicUrl: 'https://pub.example.test/hooks/a1',
      registration: elsewhere,
      hasSecret: true,
      localAppDownSince: null,
      pending: 0,
      receiverUrl: `${LISTEN}/hooks/a1`,
      exposedUrl: null,
    },
    {
      teamId: 'team2',
      agentId: 'a2',
      publicUrl: null,
      registration: unknown,
      hasSecret: false,
      localAppDownSince: null,
      pending: 0,
      receiverUrl: `${LISTEN}/hooks/a2`,
      exposedUrl: null,
    },
  ],
  counts: { received: 3, verified: 2, duplicates: 0, rejected: 1, forwarded: 2, failed: 0 },
  exposure: exposureOff,
};

const summary = (id: string, over: Partial<DeliverySummaryDTO> = {}): DeliverySummaryDTO => ({
  id,
  serviceId: null,
  receivedAt: 1_700_000_000_000,
  teamId: 'team1',
  agentId: 'a1',
  event: 'message.received',
  from: '15550102000',
  messageId: `m-${id}`,
  messageType: 'text',
  preview: `hello ${id}`,
  verdict: 'verified',
  forwardStatus: 200,
  ...over,
});

const list = [
  summary('d3', {
    receivedAt: 1_700_000_003_000,
    teamId: 'team2',
    agentId: 'a2',
    from: '4930123456',
    messageType: 'image',
    verdict: 'signature-mismatch',
    forwardStatus: null,
  }),
  summary('d2', { receivedAt: 1_700_000_002_000, messageType: 'document', verdict: 'simulated' }),
  summary('d1', { receivedAt: 1_700_000_001_000 }),
];

const refusedOne: RefusedRequestDTO = {
  id: 'r1',
  at: 1_700_000_002_500,
  method: 'POST',
  path: '/webhook',
  agentId: null,
  from: '203.0.113.9',
  reason: 'not-a-hook',
  detail: 'the path is not /hooks/<agentId>\nthe service may point at a wrong URL',
  status: 404,
  size: 1234,
  sha256: 'ab'.repeat(32),
  prefix: '{"event":"message.received"',
  headers: { 'content-type': 'application/json' },
};

const detail: DeliveryDetailDTO = {
  ...summary('d1', { receivedAt: 1_700_000_001_000 }),
  headers: { 'content-type': 'application/json', 'x-webhook-signature': 't=1,v1=abc' },
  rawBody: '{"event":"message.received","from":"15550102000","message":{"text":"hi","fromMe":false,"n":3,"gone":null}}',
  verificationDetail: 'found v1 signature\ntimestamp within 300 s\nsignature matches',
  forwards: [
    {
      deliveryId: 'd1',
      at: 1_700_000_001_100,
      url: 'http://127.0.0.1:3000/hook',
      status: 500,
      durationMs: 12,
      error: 'Internal Server Error',
    },
  ],
  forwardState: 'pending',
  nextTryAt: null,
};

const teams: TeamDTO[] = [
  {
    teamId: 'team1',
    label: 'Ops',
    baseUrl: 'https://api.example.test',
    keyHint: '…9f2c',
    keyRejected: false,
    agentIds: ['a1'],
  },
  {
    teamId: 'team2',
    label: 'Lab',
    baseUrl: 'http://127.0.0.1:9100',
    keyHint: '…1111',
    keyRejected: false,
    agentIds: ['a2'],
  },
];

const agents = [
  { ...agentDTO('a1', 'connected', {}, 'team1'), label: 'Support bot' },
  { ...agentDTO('a2', 'connected', {}, 'team2'), label: 'Lab bot' },
];

function setup(answers: Parameters<typeof storeSetup>[0] = {}) {
  const t = storeSetup(
    {
      'teams.list': { ok: true, value: teams },
      'agents.list': { ok: true, value: agents },
      'tunnel.status': { ok: true, value: status },
      'tunnel.deliveries': { ok: true, value: list },
      'tunnel.refused': { ok: true, value: [refusedOne] },
      'tunnel.delivery': { ok: true, value: detail },
      'tunnel.replay': {
        ok: true,
        value: {
          deliveryId: 'd1',
          at: 1_700_000_009_000,
          url: 'http://127.0.0.1:3000/hook',
          status: 202,
          durationMs: 7,
        },
      },
      'tunnel.export': ({ format }: { format: string }) =>
        format === 'curl'
          ? {
              ok: true,
              value: { format: 'curl', filename: 'd1.sh', content: "curl -X POST 'http://127.0.0.1:3000/hook'" },
            }
          : { ok: true, value: { format: 'fixture', filename: 'delivery-d1.json', content: '{"id":"d1"}' } },
      ...answers,
    },
    { t: 0 },
    { nextFrame: (fn) => fn() },
  );
  connectStore(t.store, t.api);
  mount(t.store, <Inspector />);
  return t;
}

const rows = () => [...document.querySelectorAll<HTMLButtonElement>('ul.reqs button.req')];
const detailPane = () => within(screen.getByRole('region', { name: 'Selected request' }));
const facts = () => document.querySelector('.tunnel-facts')!;
const hookRow = (name: string) =>
  within(screen.getByRole('table', { name: 'Hook URLs of each agent' })).getByRole('row', { name: new RegExp(name) });
const toggle = (name: string) =>
  within(screen.getByRole('group', { name: 'Tunnel settings' })).getByRole('button', { name });

let writeText: ReturnType<typeof vi.fn>;
beforeEach(() => {
  writeText = vi.fn(async () => undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('tunnel inspector: top', () => {
  it("shows the receiver and each agent's full hook URL, named by labels, never team ids", async () => {
    setup();
    await flush();
    expect(facts().textContent).toContain('Listening');
    expect(facts().textContent).toContain('on 127.0.0.1:4555, this computer only');
    expect(facts().textContent).toContain('Not exposed');
    const a1 = hookRow('Support bot');
    expect(a1.textContent).toContain('Ops');
    expect(a1.textContent).toContain(`${LISTEN}/hooks/a1`);
    expect(a1.textContent).toContain(
      'registered by this install to https://pub.example.test/hooks/a1 on 2026-11-26 09:05 (webhook set)',
    );
    expect(hookRow('Lab bot').textContent).toContain(UNKNOWN);
    expect(document.body.textContent).not.toContain('not registered');
    expect(document.body.textContent).not.toContain('team1');
    expect(document.body.textContent).not.toContain('team2');
  });

  it('copies a hook URL and says so', async () => {
    setup();
    await flush();
    const button = within(hookRow('Support bot')).getByRole('button', {
      name: 'Copy the local hook URL of Support bot · Ops',
    });
    fireEvent.click(button);
    await flush();
    expect(writeText).toHaveBeenCalledWith(`${LISTEN}/hooks/a1`);
    expect(button.textContent).toBe('Copied');
    expect(within(hookRow('Support bot')).getByRole('status').textContent).toBe(
      'Copied the local hook URL of Support bot · Ops.',
    );
  });

  it('"Register this receiver" where the team\'s service runs on this machine, and only there, after a confirm step', async () => {
    const t = setup({ 'webhook.register': { ok: true, value: { mode: 'passthrough', url: `${LISTEN}/hooks/a2` } } });
    await flush();
    expect(within(hookRow('Support bot')).queryByRole('button', { name: /Register this receiver/ })).toBeNull();
    const first = within(hookRow('Lab bot')).getByRole('button', { name: 'Register this receiver for Lab bot · Lab' });
    first.focus();
    fireEvent.click(first);
    await flush();
    // A confirm step first: nothing is registered until the person confirms it.
    expect(t.calls.some((c) => c.name === 'webhook.register')).toBe(false);
    const ask = screen.getByRole('group', { name: 'Confirm the new webhook URL of Lab bot · Lab' });
    expect(ask.textContent).toContain(`Point the webhook of Lab bot · Lab at ${LISTEN}/hooks/a2? ${TAKEOVER_UNKNOWN}`);
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('group', { name: /Confirm the new webhook URL/ })).toBeNull();
    const opener = within(hookRow('Lab bot')).getByRole('button', { name: 'Register this receiver for Lab bot · Lab' });
    expect(document.activeElement).toBe(opener);
    fireEvent.click(opener);
    fireEvent.click(
      within(screen.getByRole('group', { name: 'Confirm the new webhook URL of Lab bot · Lab' })).getByRole('button', {
        name: 'Replace the webhook',
      }),
    );
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.register')?.args).toEqual({
      teamId: 'team2',
      agentId: 'a2',
      publicUrl: `${LISTEN}/hooks/a2`,
    });
  });

  it('a registration of this receiver it no longer answers (port changed): said at the top and in the row, with "Register again"', async () => {
    const moved: RegistrationStatusDTO = {
      state: 'stale',
      text: 'registered here at 10:42 to http://127.0.0.1:4444/hooks/a2, which no longer reaches this receiver (the receiver now listens at http://127.0.0.1:4555/hooks/a2): register again',
      last: {
        url: 'http://127.0.0.1:4444/hooks/a2',
        at: 1_700_000_000_000,
        source: 'app: Tunnel → Register',
        target: 'receiver',
      },
      takeover: TAKEOVER_UNKNOWN,
    };
    setup({
      'tunnel.status': {
        ok: true,
        value: { ...status, agents: [status.agents[0]!, { ...status.agents[1]!, registration: moved }] },
      },
    });
    await flush();
    expect(facts().textContent).toContain(
      'The webhook of Lab bot · Lab was registered here at an address this receiver no longer answers (its port changed): register again below.',
    );
    expect(hookRow('Lab bot').textContent).toContain(moved.text);
    expect(
      within(hookRow('Lab bot')).getByRole('button', { name: 'Register this receiver for Lab bot · Lab' }).textContent,
    ).toBe('Register again');
  });

  it('the history of an agent; "Restore previous URL" after a confirm step; the new secret only on a confirmed reveal, never in the store', async () => {
    const SECRET = 'whsec_restored_0123456789abcdef0123';
    const history = {
      entries: [
        {
          url: 'https://pub.example.test/hooks/a1',
          at: 1_700_000_100_000,
          source: 'webhook set',
          target: 'other' as const,
        },
        {
          url: 'https://prod.example.test/hook',
          at: 1_700_000_000_000,
          source: 'app: Tunnel → Register',
          target: 'other' as const,
        },
      ],
      previous: {
        url: 'https://prod.example.test/hook',
        at: 1_700_000_000_000,
        source: 'app: Tunnel → Register',
        target: 'other' as const,
      },
      problem: null,
    };
    const t = setup({
      'webhook.history': { ok: true, value: history },
      'webhook.restore': {
        ok: true,
        value: {
          mode: 'passthrough',
          url: 'https://prod.example.test/hook',
          secretHint: '…0123',
          words:
            'The webhook points at https://prod.example.test/hook again. The service issued a new signing secret: the app behind that URL rejects deliveries until it is given the new secret.',
        },
      },
      'webhook.revealSecret': { ok: true, value: { secret: SECRET } },
    });
    await flush();
    fireEvent.click(
      within(hookRow('Support bot')).getByRole('button', { name: 'Registration history of Support bot · Ops' }),
    );
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.history')?.args).toEqual({ teamId: 'team1', agentId: 'a1' });
    const list = screen.getByRole('list', { name: 'Registrations of Support bot · Ops by this install' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      expect.stringContaining('https://pub.example.test/hooks/a1 (webhook set)'),
      expect.stringContaining('https://prod.example.test/hook (app: Tunnel → Register)'),
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Restore previous URL' }));
    expect(t.calls.some((c) => c.name === 'webhook.restore')).toBe(false);
    const ask = screen.getByRole('group', { name: 'Confirm the new webhook URL of Support bot · Ops' });
    expect(ask.textContent).toContain('Point the webhook of Support bot · Ops at https://prod.example.test/hook?');
    fireEvent.click(within(ask).getByRole('button', { name: 'Replace the webhook' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.restore')?.args).toEqual({ teamId: 'team1', agentId: 'a1' });
    expect(
      screen.getByText(/the app behind that URL rejects deliveries until it is given the new secret/),
    ).toBeTruthy();

    // The secret: asked for, then confirmed; until then it is nowhere in the window.
    expect(t.calls.some((c) => c.name === 'webhook.revealSecret')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Reveal the new signing secret…' }));
    expect(t.calls.some((c) => c.name === 'webhook.revealSecret')).toBe(false);
    fireEvent.click(
      within(screen.getByRole('group', { name: 'Confirm showing the signing secret' })).getByRole('button', {
        name: 'Show the secret',
      }),
    );
    await flush();
    expect(document.body.textContent).toContain(SECRET);
    expect(JSON.stringify(t.store.getState())).not.toContain(SECRET);
    fireEvent.click(screen.getByRole('button', { name: 'Copy the signing secret of Support bot · Ops' }));
    await flush();
    expect(writeText).toHaveBeenCalledWith(SECRET);
    fireEvent.click(screen.getByRole('button', { name: 'Hide' }));
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('counts a duplicate as verified and as a duplicate, never as refused', async () => {
    setup({
      'tunnel.status': {
        ok: true,
        value: { ...status, counts: { received: 5, verified: 5, duplicates: 1, rejected: 0, forwarded: 4, failed: 0 } },
      },
    });
    await flush();
    expect(facts().textContent).toContain('5 received · 5 verified · 1 duplicate · 0 refused · 4 forwarded · 0 failed');
  });

  it('shows the local app state from tunnel.status: down since and waiting', async () => {
    const down = 1_700_000_050_000;
    setup({
      'tunnel.status': {
        ok: true,
        value: {
          ...status,
          agents: [{ ...status.agents[0]!, localAppDownSince: down, pending: 3 }, status.agents[1]!],
        },
      },
    });
    await flush();
    expect(facts().textContent).toContain(`Local app down since ${new Date(down).toLocaleTimeString()}`);
    expect(facts().textContent).toContain('3 waiting');
  });

  it('an exposure that is up: its URL with a copy button, each agent\'s public hook URL, and "Register the public URL"', async () => {
    const up: ExposureDTO = { ...exposureOff, state: 'up', kind: 'ngrok', url: 'https://ab12.ngrok-free.app' };
    const agents = status.agents.map((a) => ({ ...a, exposedUrl: `${up.url}/hooks/${a.agentId}` }));
    setup({ 'tunnel.status': { ok: true, value: { ...status, agents, exposure: up } } });
    await flush();
    expect(facts().textContent).toContain('Up (ngrok)');
    expect(facts().textContent).toContain('https://ab12.ngrok-free.app');
    expect(hookRow('Lab bot').textContent).toContain('https://ab12.ngrok-free.app/hooks/a2');
    fireEvent.click(
      within(hookRow('Lab bot')).getByRole('button', { name: 'Copy the public hook URL of Lab bot · Lab' }),
    );
    await flush();
    expect(writeText).toHaveBeenLastCalledWith('https://ab12.ngrok-free.app/hooks/a2');
    expect(
      within(hookRow('Support bot')).getByRole('button', { name: 'Register the public URL for Support bot · Ops' }),
    ).toBeTruthy();
  });

  it('a stopped exposure says where the service still sends deliveries, and that it cannot be removed', async () => {
    const stopped: ExposureDTO = {
      ...exposureOff,
      state: 'stopped',
      kind: 'command',
      url: 'https://old.trycloudflare.com',
    };
    const gone: RegistrationStatusDTO = {
      state: 'stale',
      text: 'registered here at 10:42 to https://old.trycloudflare.com/hooks/a1, a public URL of this receiver that no longer reaches it (the receiver is not exposed now): register again',
      last: {
        url: 'https://old.trycloudflare.com/hooks/a1',
        at: 1_700_000_000_000,
        source: 'app: Tunnel → Public URL',
        target: 'exposure',
      },
      takeover: TAKEOVER_UNKNOWN,
    };
    const agents = [
      { ...status.agents[0]!, publicUrl: 'https://old.trycloudflare.com/hooks/a1', registration: gone },
      status.agents[1]!,
    ];
    setup({ 'tunnel.status': { ok: true, value: { ...status, agents, exposure: stopped } } });
    await flush();
    expect(facts().textContent).toContain('Stopped (your tunnel command)');
    expect(facts().textContent).toContain(
      'The service still sends the deliveries of Support bot · Ops to https://old.trycloudflare.com, which no longer answers: the service offers no way to remove a webhook.',
    );
    expect(hookRow('Support bot').textContent).toContain(
      'a public URL of this receiver that no longer reaches it (the receiver is not exposed now): register again',
    );
  });

  it('a failed exposure says why and what to do; the tunnel.exposure event updates it live', async () => {
    const t = setup();
    await flush();
    act(() => t.emit('tunnel.exposure', { ...exposureOff, state: 'starting', kind: 'ngrok' }));
    expect(facts().textContent).toContain('Starting (ngrok)…');
    act(() =>
      t.emit('tunnel.exposure', {
        ...exposureOff,
        state: 'failed',
        kind: 'ngrok',
        error: {
          code: 'authtoken-rejected',
          message: 'ngrok refused the authtoken (ERR_NGROK_105)',
          hint: 'Store your authtoken once.',
        },
      }),
    );
    expect(facts().textContent).toContain('Failed (ngrok)');
    expect(facts().textContent).toContain('Ngrok refused the authtoken (ERR_NGROK_105). Store your authtoken once.');
  });

  it('a failing status says what happened', async () => {
    const err: Result<never> = {
      ok: false,
      error: { kind: 'internal', code: 'TUNNEL_OFF', message: 'The tunnel is not running.' },
    };
    setup({ 'tunnel.status': err });
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('The tunnel is not running.');
  });
});

describe('tunnel inspector: panels', () => {
  it('the forwarding panel turns legacy-only signatures on and off as the saved tunnel setting', async () => {
    let saved: Record<string, unknown> | null = null;
    const tunnelSettings = { port: 4555, forwardTo: 'http://127.0.0.1:3000/hook', allowLegacySignature: false };
    const settings = (allow: boolean) => ({
      installId: 'i1',
      tunnel: { ...tunnelSettings, allowLegacySignature: allow },
    });
    const t = setup({
      'settings.get': { ok: true, value: settings(false) },
      'settings.update': ({ patch }: { patch: Record<string, unknown> }) => {
        saved = patch;
        return { ok: true, value: settings((patch.tunnel as { allowLegacySignature: boolean }).allowLegacySignature) };
      },
    });
    await flush();
    fireEvent.click(toggle('Forwarding'));
    const sw = screen.getByRole('switch', {
      name: /Accept deliveries signed only with the legacy signature/,
    }) as HTMLInputElement;
    expect(sw.checked).toBe(false);
    fireEvent.click(sw);
    await flush();
    expect(saved).toEqual({
      tunnel: { port: 4555, forwardTo: 'http://127.0.0.1:3000/hook', allowLegacySignature: true },
    });
    expect((screen.getByRole('switch', { name: /legacy signature/ }) as HTMLInputElement).checked).toBe(true);
    expect(t.store.getState().settings?.tunnel.allowLegacySignature).toBe(true);
  });

  it('one panel at a time; Escape closes it and gives focus back to its toggle', async () => {
    setup();
    await flush();
    fireEvent.click(toggle('Forwarding'));
    expect(toggle('Forwarding').getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByLabelText('Local app URL')).toBeTruthy();
    fireEvent.click(toggle('Simulate a message'));
    expect(toggle('Forwarding').getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('Local app URL')).toBeNull();
    screen.getByLabelText('From (number)').focus();
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(toggle('Simulate a message').getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(toggle('Simulate a message'));
  });

  it('exposes with a tunnel command and the chosen agents; a command without {port} cannot start', async () => {
    const up: ExposureDTO = {
      ...exposureOff,
      state: 'up',
      kind: 'command',
      url: 'https://x.trycloudflare.com',
      registrations: [
        {
          teamId: 'team1',
          agentId: 'a1',
          url: 'https://x.trycloudflare.com/hooks/a1',
          state: 'registered',
          error: null,
        },
      ],
    };
    let exposed = false;
    const agentsUp = status.agents.map((a) => ({ ...a, exposedUrl: `${up.url}/hooks/${a.agentId}` }));
    const t = setup({
      'tunnel.expose': () => ((exposed = true), { ok: true, value: up }),
      'tunnel.status': () => ({ ok: true, value: exposed ? { ...status, agents: agentsUp, exposure: up } : status }),
    });
    await flush();
    fireEvent.click(toggle('Public URL'));
    fireEvent.click(screen.getByRole('radio', { name: /My own tunnel command/ }));
    const cmd = screen.getByLabelText('Command');
    fireEvent.change(cmd, { target: { value: 'cloudflared tunnel' } });
    expect(screen.getByText("Put {port} where the receiver's port goes.")).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Start' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(cmd, { target: { value: 'cloudflared tunnel --url http://127.0.0.1:{port}' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Support bot · Ops' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start' }));
    await flush();
    // Registering replaces the agent's webhook: asked first, naming what stops receiving.
    expect(t.calls.some((c) => c.name === 'tunnel.expose')).toBe(false);
    const ask = screen.getByRole('group', { name: 'Confirm the new webhook URLs' });
    expect(ask.textContent).toContain(`Support bot · Ops: ${elsewhere.takeover}`);
    fireEvent.click(within(ask).getByRole('button', { name: 'Start and replace the webhooks' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.expose')?.args).toEqual({
      kind: 'command',
      command: 'cloudflared tunnel --url http://127.0.0.1:{port}',
      register: [{ teamId: 'team1', agentId: 'a1' }],
    });
    expect(facts().textContent).toContain('Up (your tunnel command)');
    expect(
      within(screen.getByRole('list', { name: 'Registrations at the public URL' })).getByText('Registered'),
    ).toBeTruthy();
  });

  it('ngrok: the authtoken is sent once to the keychain and not kept; then it is shown by its hint', async () => {
    let stored = false;
    const t = setup({
      'tunnel.setNgrokAuthtoken': () => ((stored = true), { ok: true, value: { hint: '…EFGH' } }),
      'tunnel.status': () => ({
        ok: true,
        value: {
          ...status,
          exposure: {
            ...exposureOff,
            ngrokAuthtoken: stored ? { stored: true, hint: '…EFGH' } : { stored: false, hint: null },
          },
        },
      }),
      'tunnel.expose': { ok: true, value: { ...exposureOff, state: 'up', kind: 'ngrok', url: 'https://n.ngrok.app' } },
    });
    await flush();
    fireEvent.click(toggle('Public URL'));
    fireEvent.click(screen.getByRole('radio', { name: /ngrok/ }));
    const field = screen.getByLabelText('ngrok authtoken') as HTMLInputElement;
    expect(field.type).toBe('password');
    fireEvent.change(field, { target: { value: '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save to the keychain' }));
    await flush();
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.setNgrokAuthtoken')?.args).toEqual({
      authtoken: '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH',
    });
    expect(JSON.stringify(t.store.getState())).not.toContain('2abcDEFghiJKLmno');
    expect(screen.getByText('…EFGH')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Reserved domain (optional)'), { target: { value: 'me.ngrok.app' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start' }));
    await flush();
    // No agent is picked by default: exposing alone replaces no webhook (and asks nothing).
    expect(t.calls.find((c) => c.name === 'tunnel.expose')?.args).toEqual({
      kind: 'ngrok',
      domain: 'me.ngrok.app',
      register: [],
    });
  });

  it('"Nothing" stops exposing', async () => {
    const t = setup({
      'tunnel.status': {
        ok: true,
        value: { ...status, exposure: { ...exposureOff, state: 'up', kind: 'ngrok', url: 'https://n.ngrok.app' } },
      },
      'tunnel.unexpose': {
        ok: true,
        value: { ...exposureOff, state: 'stopped', kind: 'ngrok', url: 'https://n.ngrok.app' },
      },
    });
    await flush();
    fireEvent.click(toggle('Public URL'));
    fireEvent.click(screen.getByRole('radio', { name: /Nothing/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Stop exposing' }));
    await flush();
    expect(t.calls.some((c) => c.name === 'tunnel.unexpose')).toBe(true);
  });

  it('simulates an inbound image, and registers a URL by hand', async () => {
    const t = setup({
      'tunnel.simulate': {
        ok: true,
        value: summary('d9', {
          messageType: 'image',
          verdict: 'simulated',
          preview: 'sim pic',
          receivedAt: 1_700_000_009_000,
        }),
      },
      'webhook.register': { ok: true, value: { mode: 'webhook', url: 'https://new.example.test/hook' } },
    });
    await flush();
    fireEvent.click(toggle('Simulate a message'));
    expect(
      within(screen.getByRole('combobox', { name: 'Agent' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Support bot · Ops', 'Lab bot · Lab']);
    fireEvent.change(screen.getByLabelText('Message type'), { target: { value: 'image' } });
    fireEvent.change(screen.getByLabelText('Caption'), { target: { value: 'look' } });
    fireEvent.click(screen.getByRole('button', { name: 'Simulate' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.simulate')?.args).toEqual({
      teamId: 'team1',
      agentId: 'a1',
      type: 'image',
      from: '15550102000',
      caption: 'look',
    });
    expect(rows()[0]!.textContent).toContain('sim pic');
    expect(within(rows()[0]!).getByText('Simulated')).toBeTruthy();

    fireEvent.click(toggle('Register a URL'));
    fireEvent.change(screen.getByLabelText('Webhook URL'), { target: { value: 'not a url' } });
    expect(screen.getByText(/not a full URL/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Webhook URL'), { target: { value: 'https://new.example.test/hook' } });
    fireEvent.click(screen.getByRole('button', { name: 'Register' }));
    await flush();
    expect(t.calls.some((c) => c.name === 'webhook.register')).toBe(false);
    const ask = screen.getByRole('group', { name: 'Confirm the new webhook URL of Support bot · Ops' });
    expect(ask.textContent).toContain(
      `Point the webhook of Support bot · Ops at https://new.example.test/hook? ${elsewhere.takeover}`,
    );
    fireEvent.click(within(ask).getByRole('button', { name: 'Replace the webhook' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.register')?.args).toEqual({
      teamId: 'team1',
      agentId: 'a1',
      publicUrl: 'https://new.example.test/hook',
    });
    expect(
      screen.getByText('Registered for Support bot · Ops: mode webhook, URL https://new.example.test/hook.'),
    ).toBeTruthy();
  });
});

describe('tunnel inspector: request list', () => {
  it('lists deliveries and refused requests newest first; live events go on top; a forward updates its row', async () => {
    const t = setup();
    await flush();
    expect(rows().map((r) => r.textContent)).toEqual([
      expect.stringContaining('hello d3'),
      expect.stringContaining('POST /webhook'),
      expect.stringContaining('hello d2'),
      expect.stringContaining('hello d1'),
    ]);
    expect(rows()[1]!.textContent).toContain('Not a hook');
    expect(screen.getByText('4 requests')).toBeTruthy();
    act(() =>
      t.emit(
        'tunnel.delivery',
        summary('d4', {
          receivedAt: 1_700_000_004_000,
          preview: 'brand new',
          verdict: 'stale-timestamp',
          forwardStatus: null,
        }),
      ),
    );
    expect(rows()[0]!.textContent).toContain('brand new');
    expect(within(rows()[0]!).getByText('Refused — timestamp too old')).toBeTruthy();
    expect(within(rows()[0]!).getByText('Not forwarded')).toBeTruthy();
    act(() =>
      t.emit('tunnel.forward', {
        deliveryId: 'd4',
        at: 1_700_000_004_100,
        url: 'x',
        status: null,
        durationMs: 3,
        error: 'ECONNREFUSED',
      }),
    );
    expect(within(rows()[0]!).getByText('App did not answer')).toBeTruthy();
    act(() =>
      t.emit('tunnel.refused', {
        ...refusedOne,
        id: 'r2',
        at: 1_700_000_005_000,
        path: '/hooks/a1',
        agentId: 'a1',
        reason: 'missing-signature',
        status: 401,
      }),
    );
    expect(rows()[0]!.textContent).toContain('Refused — no signature');
    expect(rows()[0]!.textContent).toContain('Support bot');
  });

  it('shows what is asked: verified, not verified, simulated, refused; by agent; by text and number', async () => {
    setup();
    await flush();
    const show = screen.getByLabelText('Show requests');
    fireEvent.change(show, { target: { value: 'verified' } });
    expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('hello d1')]);
    fireEvent.change(show, { target: { value: 'unverified' } });
    expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('hello d3')]);
    fireEvent.change(show, { target: { value: 'simulated' } });
    expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('hello d2')]);
    fireEvent.change(show, { target: { value: 'refused' } });
    expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('POST /webhook')]);
    fireEvent.change(show, { target: { value: 'all' } });
    fireEvent.change(screen.getByLabelText('Filter by agent'), { target: { value: 'a2' } });
    expect(rows()).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('Filter by agent'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('Search requests'), { target: { value: '+49 30' } });
    expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('hello d3')]);
    expect(screen.getByText('1 of 4 requests shown')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Search requests'), { target: { value: 'support bot' } });
    expect(rows()).toHaveLength(2);
  });

  it('searches the stored log too (bodies, older entries) a moment after typing', async () => {
    const old = summary('d0', { receivedAt: 1_600_000_000_000, preview: 'from last week' });
    const t = setup({
      'tunnel.deliveries': (args: { text?: string }) => ({ ok: true, value: args.text ? [old] : list }),
      'tunnel.refused': (args: { text?: string }) => ({ ok: true, value: args.text ? [] : [refusedOne] }),
    });
    await flush();
    const searched = (name: string) =>
      t.calls.filter((c) => c.name === name && (c.args as { text?: string }).text).map((c) => c.args);
    // The log is searched 300 ms after typing stops (on a fake clock), once for the settled text.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
      fireEvent.change(screen.getByLabelText('Search requests'), { target: { value: 'order 45' } });
      await advance(200);
      fireEvent.change(screen.getByLabelText('Search requests'), { target: { value: 'order 4521' } });
      expect(screen.getByText('Nothing matches.')).toBeTruthy();
      await advance(299);
      expect(searched('tunnel.deliveries')).toEqual([]);
      await advance(1);
      expect(searched('tunnel.deliveries')).toEqual([{ text: 'order 4521', limit: 200 }]);
      expect(searched('tunnel.refused')).toEqual([{ text: 'order 4521', limit: 200 }]);
      expect(rows().map((r) => r.textContent)).toEqual([expect.stringContaining('from last week')]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the arrow keys, Home and End move the selection', async () => {
    setup();
    await flush();
    rows()[0]!.focus();
    fireEvent.keyDown(rows()[0]!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(rows()[1]);
    expect(rows()[1]!.getAttribute('aria-current')).toBe('true');
    expect(detailPane().getByRole('heading', { level: 3 }).textContent).toContain('POST /webhook');
    fireEvent.keyDown(rows()[1]!, { key: 'End' });
    expect(rows()[3]!.getAttribute('aria-current')).toBe('true');
    fireEvent.keyDown(rows()[3]!, { key: 'Home' });
    expect(rows()[0]!.getAttribute('aria-current')).toBe('true');
    await flush();
  });

  it('matches() and rowsOf() are plain functions over the rows', () => {
    const all = rowsOf(list, [refusedOne]);
    expect(all.map((r) => r.id)).toEqual(['d3', 'r1', 'd2', 'd1']);
    const name = (id: string) => (id === 'a1' ? 'Support bot' : id);
    expect(all.filter((r) => matches(r, NO_FILTER, name))).toHaveLength(4);
    expect(all.filter((r) => matches(r, { ...NO_FILTER, text: '203.0.113' }, name)).map((r) => r.id)).toEqual(['r1']);
    expect(all.filter((r) => matches(r, { ...NO_FILTER, text: 'support hello' }, name)).map((r) => r.id)).toEqual([
      'd2',
      'd1',
    ]);
  });
});

describe('tunnel inspector: the selected request', () => {
  it('a delivery: verdict, who (labels), verification steps, forward attempts, headers, body as a tree and raw', async () => {
    const t = setup();
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.delivery')?.args).toEqual({ id: 'd1' });
    const pane = detailPane();
    expect(pane.getByRole('heading', { name: 'Text message from +15550102000' })).toBeTruthy();
    expect(pane.getByText(/to Support bot · Ops/)).toBeTruthy();
    expect(pane.getByText('timestamp within 300 s')).toBeTruthy();
    expect(pane.getByText('500 — Internal Server Error')).toBeTruthy();
    expect(pane.getByText('12 ms')).toBeTruthy();
    expect(pane.getByText('x-webhook-signature')).toBeTruthy();
    const tree = pane.getByRole('list', { name: 'Body' });
    expect(tree.textContent).toContain('event: "message.received"');
    expect(tree.textContent).toContain('text: "hi"');
    expect(tree.textContent).toContain('fromMe: false');
    expect(tree.textContent).toContain('gone: null');
    expect(tree.querySelectorAll('details').length).toBe(2);
    fireEvent.click(pane.getByRole('button', { name: 'Raw' }));
    expect(pane.getByLabelText('Body').textContent).toBe(detail.rawBody);
    expect(pane.getByRole('button', { name: 'Raw' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('a body that is not JSON is shown raw, with a note', async () => {
    setup({ 'tunnel.delivery': { ok: true, value: { ...detail, rawBody: 'plain words, not JSON' } } });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(detailPane().getByLabelText('Body').textContent).toBe('plain words, not JSON');
    expect(detailPane().getByText('Not JSON: shown as received.')).toBeTruthy();
    expect((detailPane().getByRole('button', { name: 'Tree' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('a refused request: why, what came (size, hash, first bytes, headers), and nothing to replay', async () => {
    setup();
    await flush();
    fireEvent.click(rows()[1]!);
    const pane = detailPane();
    expect(pane.getByRole('heading', { level: 3 }).textContent).toBe('POST /webhook');
    expect(pane.getByText('Not a hook')).toBeTruthy();
    expect(pane.getByText('the service may point at a wrong URL')).toBeTruthy();
    expect(pane.getByText('1234 bytes')).toBeTruthy();
    expect(pane.getByText('ab'.repeat(32))).toBeTruthy();
    expect(pane.getByLabelText('Start of the body').textContent).toBe('{"event":"message.received"');
    expect(pane.getByText(/The receiver answered 404/)).toBeTruthy();
    expect(pane.queryByRole('button', { name: /Replay/ })).toBeNull();
  });

  it('replays as received, re-signed, and with an edited body', async () => {
    const t = setup();
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Replay as received' }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Replay re-signed' }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Edit and replay…' }));
    const box = screen.getByLabelText('Body to replay (re-signed)') as HTMLTextAreaElement;
    expect(box.value).toBe(detail.rawBody);
    fireEvent.change(box, { target: { value: '{"edited":true}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Replay edited body' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'tunnel.replay').map((c) => c.args)).toEqual([
      { id: 'd1', mode: 'as-received' },
      { id: 'd1', mode: 're-signed' },
      { id: 'd1', mode: 're-signed', body: '{"edited":true}' },
    ]);
    expect(screen.getByText('Replayed (edited, re-signed): 202 in 7 ms.')).toBeTruthy();
  });

  it('copies as curl and downloads the JSON fixture through tunnel.export', async () => {
    const t = setup();
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:fixture'), revokeObjectURL: vi.fn() });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await flush();
    expect(writeText).toHaveBeenCalledWith("curl -X POST 'http://127.0.0.1:3000/hook'");
    fireEvent.click(screen.getByRole('button', { name: 'Download JSON fixture' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'tunnel.export').map((c) => c.args)).toEqual([
      { id: 'd1', format: 'curl' },
      { id: 'd1', format: 'fixture' },
    ]);
    expect(clicked).toEqual(['delivery-d1.json']);
    expect(screen.getByText('Downloaded delivery-d1.json.')).toBeTruthy();
    click.mockRestore();
  });

  it('without a forward address, replay says it is a local setting and each disabled button says why', async () => {
    const t = setup({ 'tunnel.status': { ok: true, value: { ...status, forwardTo: null } } });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    const why = document.querySelector('.no-forward')!;
    expect(why.textContent).toContain('a local setting of this app');
    for (const name of ['Replay as received', 'Replay re-signed', 'Edit and replay…']) {
      const button = screen.getByRole('button', { name }) as HTMLButtonElement;
      expect(button.disabled).toBe(true);
      expect(button.getAttribute('aria-describedby')).toBe(why.id);
      expect(button.title).toContain('No forward address is set');
    }
    fireEvent.click(screen.getByRole('button', { name: 'Replay as received' }));
    await flush();
    expect(t.calls.some((c) => c.name === 'tunnel.replay')).toBe(false);
    // Copy as curl still works, and says where the command posts.
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await flush();
    expect(detailPane().getByRole('status').textContent).toContain(
      'No forward address is set: it posts to <FORWARD_URL>',
    );
  });

  it('with a forward address, Copy as curl says it posts there', async () => {
    setup();
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(document.querySelector('.no-forward')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await flush();
    expect(detailPane().getByRole('status').textContent).toBe(
      'Copied the curl command. It posts to the forward address, http://127.0.0.1:3000/hook.',
    );
  });

  it("names the delivery by this app's id first (as the command line does), then the service's and the message's", async () => {
    setup({
      'tunnel.delivery': { ok: true, value: { ...detail, serviceId: 'dlv_9' } },
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(document.querySelector('.delivery-ids')?.textContent).toBe(
      "Delivery d1 · the service's id dlv_9 · message m-d1",
    );
    cleanup();
    setup();
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(document.querySelector('.delivery-ids')?.textContent).toBe('Delivery d1 · message m-d1');
  });

  it('a forward that waits says when it tries next, counting down, with Retry now', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(1_700_000_010_000);
    let pending = true;
    const t = setup({
      'tunnel.delivery': () => ({
        ok: true,
        value: pending
          ? { ...detail, nextTryAt: 1_700_000_018_000 }
          : { ...detail, forwardState: 'delivered', nextTryAt: null },
      }),
      'tunnel.retryNow': () => ((pending = false), { ok: true, value: { pending: 0 } }),
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    const waiting = () => screen.getByRole('group', { name: 'Forward waiting' });
    expect(waiting().textContent).toContain('Waiting to be forwarded, next try in 8 s.');
    act(() => vi.advanceTimersByTime(3000));
    expect(waiting().textContent).toContain('next try in 5 s.');
    fireEvent.click(within(waiting()).getByRole('button', { name: 'Retry now' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.retryNow')?.args).toEqual({ agentId: 'a1' });
    expect(screen.queryByRole('group', { name: 'Forward waiting' })).toBeNull();
  });

  it("a replay joins the delivery's attempts, marked, and leaves its own forward status (the list row) as it was", async () => {
    const t = setup({
      'tunnel.replay': {
        ok: true,
        value: {
          deliveryId: 'd1',
          at: 1_700_000_009_000,
          url: 'http://127.0.0.1:3000/hook',
          status: 500,
          durationMs: 7,
          replay: 'as-received',
        },
      },
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    const d1Row = () => rows().find((r) => r.textContent?.includes('hello d1'))!;
    expect(d1Row().textContent).toContain('Forwarded 200');
    fireEvent.click(screen.getByRole('button', { name: 'Replay as received' }));
    await flush();
    // The event of the same replay arrives too.
    act(() =>
      t.emit('tunnel.forward', {
        deliveryId: 'd1',
        at: 1_700_000_009_000,
        url: 'http://127.0.0.1:3000/hook',
        status: 500,
        durationMs: 7,
        replay: 'as-received',
      }),
    );
    expect(d1Row().textContent).toContain('Forwarded 200');
    expect(t.store.getState().forwardLog).toEqual([]);
    const last = [...document.querySelectorAll('table.forwards tbody tr')].at(-1)!;
    expect(last.textContent).toContain('Replay');
    expect(last.textContent).toContain('500');
  });

  it('shows what the local app answered with each forward attempt', async () => {
    setup({
      'tunnel.delivery': {
        ok: true,
        value: { ...detail, forwards: [{ ...detail.forwards[0]!, responseBody: '{"error":"db down"}' }] },
      },
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(screen.getByText('{"error":"db down"}')).toBeTruthy();
  });

  it('downloads the media of an image delivery through tunnel.media (a Blob download); none for text', async () => {
    const t = setup({
      'tunnel.delivery': ({ id }: { id: string }) => ({
        ok: true,
        value: { ...detail, ...summary(id, { messageType: id === 'd1' ? 'text' : 'image' }) },
      }),
      'tunnel.media': {
        ok: true,
        value: { filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' },
      },
    });
    const blobs: Blob[] = [];
    Object.assign(URL, {
      createObjectURL: vi.fn((b: Blob) => (blobs.push(b), 'blob:media')),
      revokeObjectURL: vi.fn(),
    });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(screen.queryByRole('button', { name: 'Download media' })).toBeNull();
    fireEvent.click(rows()[0]!);
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Download media' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.media')?.args).toEqual({ id: 'd3' });
    expect(clicked).toEqual(['photo.png']);
    expect(blobs[0]?.type).toBe('image/png');
    expect([...new Uint8Array(await blobs[0]!.arrayBuffer())]).toEqual([1, 2, 3]);
    expect(screen.getByText('Downloaded photo.png (3 bytes).')).toBeTruthy();
    click.mockRestore();
  });

  it('an image delivery shows a preview drawn from the bytes the main side fetched; a link that expired says so; only raster images are drawn', async () => {
    let answer: unknown = {
      ok: true,
      value: { filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' },
    };
    const t = setup({
      'tunnel.delivery': ({ id }: { id: string }) => ({
        ok: true,
        value: {
          ...detail,
          ...summary(id, {
            messageType: id === 'd1' ? 'text' : 'image',
            preview: id === 'd1' ? 'hi' : 'the broken part',
          }),
        },
      }),
      'tunnel.media': () => answer,
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(detailPane().queryByRole('img')).toBeNull();
    expect(t.calls.some((c) => c.name === 'tunnel.media')).toBe(false);
    fireEvent.click(rows()[0]!);
    await flush();
    const img = detailPane().getByRole('img', {
      name: 'The image from +15550102000: the broken part',
    }) as HTMLImageElement;
    expect(img.getAttribute('src')).toBe('data:image/png;base64,AQID');
    expect(t.calls.filter((c) => c.name === 'tunnel.media').map((c) => c.args)).toEqual([{ id: 'd3' }]);
    cleanup();
    answer = { ok: false, error: { kind: 'not-found', code: 'MEDIA_EXPIRED', message: 'The media link has expired.' } };
    setup({
      'tunnel.delivery': { ok: true, value: { ...detail, messageType: 'image' } },
      'tunnel.media': () => answer,
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(detailPane().queryByRole('img')).toBeNull();
    expect(detailPane().getByRole('alert').textContent).toContain('expired');
    cleanup();
    answer = { ok: true, value: { filename: 'x.svg', mimeType: 'image/svg+xml', bytes: 3, dataBase64: 'AQID' } };
    setup({
      'tunnel.delivery': { ok: true, value: { ...detail, messageType: 'image' } },
      'tunnel.media': () => answer,
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    expect(detailPane().queryByRole('img')).toBeNull();
    expect(detailPane().getByRole('alert').textContent).toContain('image/svg+xml, which is not shown here');
  });

  it('a failed media download says why', async () => {
    setup({
      'tunnel.delivery': { ok: true, value: { ...detail, messageType: 'document' } },
      'tunnel.media': {
        ok: false,
        error: { kind: 'invalid-request', code: 'MEDIA_TOO_LARGE', message: 'The file is larger than 25 MiB.' },
      },
    });
    await flush();
    fireEvent.click(rows()[3]!);
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Download media' }));
    await flush();
    expect(screen.getByText(/larger than 25 MiB/)).toBeTruthy();
  });
});

describe('the tunnel screen', () => {
  it('loads the inspector on first visit', async () => {
    const t = storeSetup({
      'tunnel.status': { ok: true, value: status },
      'tunnel.deliveries': { ok: true, value: [] },
      'tunnel.refused': { ok: true, value: [] },
    });
    connectStore(t.store, t.api);
    mount(t.store, <TunnelScreen />);
    expect(screen.getByText('Loading the webhook tunnel…')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Webhook tunnel' })).toBeTruthy();
  });
});

describe('local app down since', () => {
  const f = (at: number, status: number | null) => ({ deliveryId: 'd', at, url: 't', status, durationMs: 1 });
  it('is the start of the trailing run of failures', () => {
    expect(downSince([f(1, 200), f(2, null), f(3, 502)])).toBe(2);
    expect(downSince([f(1, null), f(2, 200)])).toBeNull();
    expect(downSince([])).toBeNull();
  });
});
