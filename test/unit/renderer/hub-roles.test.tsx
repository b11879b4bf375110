// @vitest-environment jsdom
// Screens that know the member's role on a team's hub (hub.status): what the role does not allow stays in view,
// disabled, and says why (its accessible description and its title); a role that allows it, or no hub at all (this
// computer's companion), leaves it as it always was. A refusal that still comes reads in words and the role is
// read again. Connected to a hub, the receiver's words speak of the hub and its public URL, never of this install.
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  AgentDTO,
  HubConnectionDTO,
  MessageContactsDTO,
  Result,
  TunnelStatusDTO,
} from '../../../src-shared/contract';
import { AlertsScreen } from '../../../src-renderer/src/features/alerts/AlertsScreen';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { TeamsManager } from '../../../src-renderer/src/features/settings/TeamsManager';
import { Inspector } from '../../../src-renderer/src/features/tunnel/Inspector';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, incident, mount, setup, team } from './fixtures';

afterEach(cleanup);

const NO_HUB: HubConnectionDTO = { url: null, member: null, role: null, publicUrl: null, problem: null };
const HUB_URL = 'https://hub.example.test';
const as = (role: string, member = 'vic'): HubConnectionDTO => ({
  url: HUB_URL,
  member,
  role,
  publicUrl: HUB_URL,
  problem: null,
});
const TO = '+15550107777';

/** The text a control's aria-describedby points at. */
function description(el: HTMLElement): string {
  return (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

function messages(hub: HubConnectionDTO, answers: Parameters<typeof setup>[0] = {}) {
  const t = setup({
    'hub.status': () => ({ ok: true, value: hub }),
    'teams.list': { ok: true, value: [team()] },
    'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    'messages.thread': { ok: true, value: { messages: [], more: false } },
    'messages.send': { ok: true, value: { status: 'sent', messageId: 'wamid.1', to: TO } },
    ...answers,
  });
  connectStore(t.store, t.api);
  mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={TO} />);
  return t;
}

const sendButton = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
const box = () => screen.getByLabelText('Reply') as HTMLTextAreaElement;

describe('the Messages composer and the member’s role', () => {
  it('a viewer sees Send disabled with the reason; Enter sends nothing', async () => {
    const t = messages(as('viewer'));
    await flush();
    const reason = "Your role (viewer) can't send messages — ask a hub admin for the developer role or above.";
    expect(sendButton().disabled).toBe(true);
    expect(description(sendButton())).toBe(reason);
    expect(sendButton().title).toBe(reason);
    expect(screen.getByTestId('role-note').textContent).toBe(reason);
    fireEvent.change(box(), { target: { value: 'hello' } });
    await act(async () => fireEvent.keyDown(box(), { key: 'Enter' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.send')).toEqual([]);
  });

  it('an admin (and a developer) may send: Send is enabled, with no reason', async () => {
    for (const role of ['admin', 'developer']) {
      const t = messages(as(role, 'ada'));
      await flush();
      expect(sendButton().disabled).toBe(false);
      expect(sendButton().getAttribute('aria-describedby')).toBeNull();
      expect(screen.queryByTestId('role-note')).toBeNull();
      fireEvent.change(box(), { target: { value: 'hello' } });
      await act(async () => fireEvent.click(sendButton()));
      await flush();
      expect(t.calls.filter((c) => c.name === 'messages.send')).toHaveLength(1);
      cleanup();
    }
  });

  it('without a hub everything is allowed, as before', async () => {
    const t = messages(NO_HUB);
    await flush();
    expect(sendButton().disabled).toBe(false);
    expect(screen.queryByTestId('role-note')).toBeNull();
    fireEvent.change(box(), { target: { value: 'hello' } });
    await act(async () => fireEvent.click(sendButton()));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.send')).toHaveLength(1);
  });

  it('a refusal that still comes (the role changed) reads in words, and the role is read again', async () => {
    let hub = as('developer');
    const t = messages(hub, {
      'hub.status': () => ({ ok: true, value: hub }),
      'messages.send': () => {
        hub = as('viewer');
        return {
          ok: false,
          error: {
            kind: 'forbidden',
            code: 'ROLE_FORBIDDEN',
            message: "Your role (viewer) can't send messages — ask a hub admin for the developer role or above.",
          },
        };
      },
    });
    await flush();
    expect(sendButton().disabled).toBe(false);
    fireEvent.change(box(), { target: { value: 'hello' } });
    await act(async () => fireEvent.click(sendButton()));
    await flush();
    await flush();
    expect(t.calls.filter((c) => c.name === 'hub.status').length).toBeGreaterThanOrEqual(2);
    expect(sendButton().disabled).toBe(true);
    expect(document.body.textContent).toContain("Your role (viewer) can't send messages");
    expect(document.body.textContent).not.toContain('ROLE_FORBIDDEN');
  });
});

describe('Alerts and Settings and the member’s role', () => {
  const alerts = (hub: HubConnectionDTO) => {
    const t = setup({
      'hub.status': { ok: true, value: hub },
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'needs-scan')] },
      'alerts.list': { ok: true, value: [incident('i1')] },
      'alerts.acknowledge': { ok: true, value: null },
    });
    connectStore(t.store, t.api);
    mount(t.store, <AlertsScreen />);
    return t;
  };
  const ack = () => screen.getByRole('button', { name: /^Acknowledge Needs a QR scan/ }) as HTMLButtonElement;

  it('a viewer sees Acknowledge and Snooze disabled with the reason', async () => {
    alerts(as('viewer'));
    await flush();
    expect(ack().disabled).toBe(true);
    expect(description(ack())).toBe(
      "Your role (viewer) can't acknowledge incidents — ask a hub admin for the on-call role or above.",
    );
    const snooze = screen.getByRole('button', { name: 'Snooze 15 min' }) as HTMLButtonElement;
    expect(snooze.disabled).toBe(true);
    expect(description(snooze)).toContain("can't snooze alerts");
  });

  it('an on-call member acknowledges', async () => {
    const t = alerts(as('on-call', 'olga'));
    await flush();
    expect(ack().disabled).toBe(false);
    await act(async () => fireEvent.click(ack()));
    await flush();
    expect(t.calls.some((c) => c.name === 'alerts.acknowledge')).toBe(true);
  });

  it('a viewer sees "Add a team…" disabled with the reason; without a hub it opens the form', async () => {
    for (const [hub, disabled] of [
      [as('viewer'), true],
      [NO_HUB, false],
    ] as const) {
      const t = setup({ 'hub.status': { ok: true, value: hub }, 'teams.list': { ok: true, value: [team()] } });
      connectStore(t.store, t.api);
      mount(t.store, <TeamsManager />);
      await flush();
      const add = screen.getByRole('button', { name: 'Add a team…' }) as HTMLButtonElement;
      expect(add.disabled).toBe(disabled);
      expect(description(add)).toBe(
        disabled ? "Your role (viewer) can't add teams — ask a hub admin for the admin role." : '',
      );
      cleanup();
    }
  });
});

describe('the receiver’s words on a hub', () => {
  const status = (agents: AgentDTO[]): TunnelStatusDTO => ({
    running: true,
    listenUrl: 'http://127.0.0.1:4555',
    forwardTo: null,
    agents: agents.map((a) => ({
      teamId: a.teamId,
      agentId: a.agentId,
      publicUrl: null,
      registration: { state: 'unknown', text: 'unknown', last: null, takeover: 'It stops receiving.' },
      hasSecret: false,
      localAppDownSince: null,
      pending: 0,
      receiverUrl: `http://127.0.0.1:4555/hooks/${a.agentId}`,
      exposedUrl: null,
    })),
    counts: { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 },
    exposure: {
      state: 'off',
      kind: null,
      url: null,
      since: 0,
      error: null,
      registrations: [],
      ngrokAuthtoken: { stored: false, hint: null },
    },
  });
  // The team's service on this machine (the emulator): without a hub, "Register this receiver" is offered.
  const inspector = (hub: HubConnectionDTO) => {
    const agents = [agent('a1', 'connected')];
    const t = setup(
      {
        'hub.status': { ok: true, value: hub },
        'teams.list': { ok: true, value: [team({ baseUrl: 'http://127.0.0.1:9100' })] },
        'agents.list': { ok: true, value: agents },
        'tunnel.status': { ok: true, value: status(agents) },
        'tunnel.deliveries': { ok: true, value: [] },
        'tunnel.refused': { ok: true, value: [] },
        'webhook.register': { ok: true, value: { mode: 'webhook', url: `${HUB_URL}/hooks/a1` } },
      },
      { t: 0 },
      { nextFrame: (fn) => fn() },
    );
    connectStore(t.store, t.api);
    mount(t.store, <Inspector />);
    return t;
  };

  it('without a hub: this computer’s receiver, "Register this receiver"', async () => {
    inspector(NO_HUB);
    await flush();
    expect(document.body.textContent).toContain('this computer only');
    expect(screen.getByRole('button', { name: /^Register this receiver for Agent a1/ })).toBeTruthy();
  });

  it('on a hub: the hub receives at its public URL; the offer points the webhook at the hub', async () => {
    const t = inspector(as('admin', 'ada'));
    await flush();
    const text = document.body.textContent ?? '';
    expect(text).toContain('at the team hub');
    expect(text).toContain(`${HUB_URL}/hooks/a1`);
    expect(text).not.toContain('this computer only');
    expect(text).not.toContain('this install');
    expect(screen.queryByRole('button', { name: /Register this receiver/ })).toBeNull();
    const point = screen.getByRole('button', { name: /^Point the webhook at the team hub for Agent a1/ });
    await act(async () => fireEvent.click(point));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Replace the webhook' })));
    await flush();
    expect(t.calls.filter((c) => c.name === 'webhook.register').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', publicUrl: `${HUB_URL}/hooks/a1` },
    ]);
  });

  it('on a hub, a viewer sees the offer disabled with the reason', async () => {
    inspector(as('viewer'));
    await flush();
    const point = screen.getByRole('button', { name: /^Point the webhook at the team hub for Agent a1/ });
    expect((point as HTMLButtonElement).disabled).toBe(true);
    expect(description(point)).toBe("Your role (viewer) can't register webhooks — ask a hub admin for the admin role.");
  });

  it('the Messages notice of an agent the hub does not receive speaks of the hub, not of this install', async () => {
    const inbox: Result<MessageContactsDTO> = {
      ok: true,
      value: {
        contacts: [],
        agents: [
          {
            teamId: 't1',
            agentId: 'a1',
            unread: 0,
            gap: 'not-registered',
            reason: "Not registered here: this install has not pointed the agent's webhook at its receiver.",
          },
        ],
        unread: 0,
        retentionDays: 90,
      },
    };
    const agents = [agent('a1', 'connected')];
    const t = setup({
      'hub.status': { ok: true, value: as('admin', 'ada') },
      'teams.list': { ok: true, value: [team({ baseUrl: 'http://127.0.0.1:9100' })] },
      'agents.list': { ok: true, value: agents },
      'messages.contacts': inbox,
      'tunnel.status': { ok: true, value: status(agents) },
    });
    connectStore(t.store, t.api);
    mount(t.store, <MessagesScreen teamId={null} agentId={null} contact={null} />);
    await flush();
    await flush();
    const text = document.body.textContent ?? '';
    expect(text).toContain('Not pointed at the team hub');
    expect(text).toContain(`${HUB_URL}/hooks/`);
    expect(text).not.toContain('this install');
    expect(screen.getByRole('button', { name: /^Point the webhook at the team hub for Agent a1/ })).toBeTruthy();
  });
});
