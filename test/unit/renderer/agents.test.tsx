// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Nav } from '../../../src-renderer/src/components/Nav';
import { AgentList } from '../../../src-renderer/src/features/agents/AgentList';
import { Timeline } from '../../../src-renderer/src/features/agents/Timeline';
import { AgentPage } from '../../../src-renderer/src/features/agents/AgentPage';
import { agent, appSettings, flush, incident, mount, session, setup, team } from './fixtures';

afterEach(cleanup);

describe('agents home', () => {
  it('sorts worst health first (HEALTHS order), then longest in state', () => {
    const list = [
      agent('ok', 'connected'),
      agent('scan', 'needs-scan'),
      agent('re', 'reconnecting'),
      agent('un', 'unreachable', { since: 5 }),
      agent('un2', 'unreachable', { since: 1 }),
      agent('q', 'unknown'),
    ];
    const { store } = setup();
    store.setState({ teams: [team()] });
    store.getState().setAgents(list);
    expect(store.getState().agentOrder).toEqual(['scan', 'un2', 'un', 're', 'q', 'ok'].map((id) => `t1/${id}`));
  });

  it('shows each agent with badge word, phone, time in state and last poll; filters', async () => {
    const { store } = setup();
    const now = Date.now();
    store.setState({
      teams: [
        team({ agentIds: ['a1', 'a2'] }),
        team({ teamId: 't2', label: 'Sales', keyRejected: true, agentIds: [] }),
      ],
      loaded: true,
    });
    store
      .getState()
      .setAgents([
        agent('a1', 'connected', { phone: '15550001111', since: now - 120_000, checkedAt: now - 10_000 }),
        agent('a2', 'reconnecting', { since: now - 30_000 }),
      ]);
    mount(store, <AgentList />);
    const rows = screen.getAllByRole('listitem');
    expect(rows[0]!.textContent).toContain('Reconnecting');
    expect(rows[0]!.textContent).toContain('recovers on its own');
    expect(rows[0]!.textContent).toContain('not polled yet');
    expect(rows[1]!.textContent).toContain('+15550001111');
    expect(rows[1]!.textContent).toMatch(/for 2 min/);
    expect(rows[1]!.textContent).toMatch(/polled 10 s ago/);
    expect(within(rows[1]!).getByRole('link', { name: 'Agent a1' }).getAttribute('href')).toBe('#/agents/a1?team=t1');
    expect(screen.getByRole('alert').textContent).toContain('team Sales (key rejected)');

    fireEvent.change(screen.getByLabelText('Filter agents'), { target: { value: '1555' } });
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('Filter agents'), { target: { value: 'nothing-like-this' } });
    expect(screen.getByText(/No agent matches/)).toBeTruthy();
  });
});

describe('agents home: filters', () => {
  it('filters by health and by team (with how many of all are left), and each row follows its own agent', () => {
    const { store } = setup();
    store.setState({
      teams: [team({ agentIds: ['a1', 'a2'] }), team({ teamId: 't2', label: 'Sales', agentIds: ['b1'] })],
      loaded: true,
    });
    store
      .getState()
      .setAgents([agent('a1', 'connected'), agent('a2', 'needs-scan'), agent('b1', 'connected', {}, 't2')]);
    mount(store, <AgentList />);
    const labels = () => screen.getAllByRole('listitem').map((r) => r.querySelector('.agent-label')?.textContent);
    expect(labels()).toEqual(['Agent a2', 'Agent a1', 'Agent b1']);
    expect(screen.getByRole('status').textContent).toBe('');

    fireEvent.change(screen.getByLabelText('Health'), { target: { value: 'connected' } });
    expect(labels()).toEqual(['Agent a1', 'Agent b1']);
    expect(screen.getByRole('status').textContent).toBe('2 of 3 agents');
    fireEvent.change(screen.getByLabelText('Team'), { target: { value: 't2' } });
    expect(labels()).toEqual(['Agent b1']);
    // A health that turns makes the agent leave (or join) the filtered list.
    act(() => store.getState().applyHealth({ ...agent('b1', 'reconnecting', {}, 't2').health, since: 9 }));
    expect(screen.getByText('No agent matches these filters.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Health'), { target: { value: '' } });
    expect(labels()).toEqual(['Agent b1']);
    expect(screen.getByRole('listitem').textContent).toContain('Reconnecting');
    expect((screen.getByLabelText('Health') as HTMLSelectElement).textContent).toContain('Reconnecting (1)');
  });
});

describe('agents home: summary, ids and actions', () => {
  it('sums up the health of every agent, names each id beside its label, and offers Pair only where a scan is needed', () => {
    const { store } = setup();
    store.setState({ teams: [team({ agentIds: ['a1', 'a2', 'a3', 'a4'] })], loaded: true });
    store
      .getState()
      .setAgents([
        agent('a1', 'connected'),
        agent('a2', 'needs-scan'),
        agent('a3', 'needs-scan', {}, 't1'),
        { ...agent('a4', 'connected'), label: 'a4' },
      ]);
    mount(store, <AgentList />);
    expect(document.querySelector('.health-summary')?.textContent).toBe(
      '4 agents:● 2 connected,↻ 0 reconnecting,▣ 2 need a QR scan,✕ 0 unreachable',
    );
    const rows = screen.getAllByRole('listitem');
    const row = (id: string) =>
      rows.find(
        (r) =>
          r.querySelector('.agent-label')?.textContent === `Agent ${id}` ||
          r.querySelector('.agent-label')?.textContent === id,
      )!;
    // The id beside the label, in small print (not repeated when the label is the id).
    expect(row('a1').querySelector('.agent-id')?.textContent).toBe('a1');
    expect(row('a4').querySelector('.agent-id')).toBeNull();
    // Pair for the agent that needs a scan; none on a connected one (which offers chat and send).
    const pair = within(row('a2')).getByRole('link', { name: 'Pair Agent a2' });
    expect(pair.getAttribute('href')).toBe('#/agents/a2/pairing?team=t1');
    expect(within(row('a1')).queryByRole('link', { name: /^Pair/ })).toBeNull();
    expect(within(row('a1')).getByRole('link', { name: 'Chat with Agent a1' }).getAttribute('href')).toBe(
      '#/agents/a1/chat?team=t1',
    );
    expect(within(row('a1')).getByRole('link', { name: 'Send from Agent a1' }).getAttribute('href')).toBe(
      '#/console?team=t1&agent=a1',
    );
  });

  it('says a failed poll in words, never by its code', () => {
    const { store } = setup();
    store.setState({ teams: [team()], loaded: true });
    store.getState().setAgents([
      agent('a1', 'unreachable', {
        error: { kind: 'not-found', code: 'AGENT_NOT_FOUND', message: 'Agent a1 is not in team Ops on the service.' },
      }),
    ]);
    mount(store, <AgentList />);
    const row = screen.getByRole('listitem');
    expect(row.textContent).toContain('last poll failed: Agent a1 is not in team Ops on the service.');
    expect(row.textContent).not.toContain('AGENT_NOT_FOUND');
  });
});

describe('agents home: the service unreachable', () => {
  it('marks each agent unreachable beside its last known state, and keeps the actions of that state', () => {
    const { store } = setup();
    store.setState({ teams: [team({ agentIds: ['a1', 'a2', 'a3'] })], loaded: true });
    store
      .getState()
      .setAgents([
        agent('a1', 'unreachable', { lastKnown: 'connected' }),
        agent('a2', 'unreachable', { lastKnown: 'needs-scan', needsScan: true }),
        agent('a3', 'unreachable'),
      ]);
    mount(store, <AgentList />);
    const rows = screen.getAllByRole('listitem');
    const row = (id: string) => rows.find((r) => r.querySelector('.agent-label')?.textContent === `Agent ${id}`)!;
    for (const id of ['a1', 'a2', 'a3'])
      expect(row(id).querySelector('.agent-health')?.textContent).toContain('Unreachable');
    expect(row('a2').querySelector('.agent-last-known')?.textContent).toBe('last known: ▣ Needs a QR scan');
    expect(within(row('a2')).getByRole('link', { name: 'Pair Agent a2' })).toBeTruthy();
    expect(within(row('a2')).queryByRole('link', { name: /^Chat with/ })).toBeNull();
    expect(row('a1').querySelector('.agent-last-known')?.textContent).toBe('last known: ● Connected');
    expect(within(row('a1')).getByRole('link', { name: 'Chat with Agent a1' })).toBeTruthy();
    expect(within(row('a1')).queryByRole('link', { name: /^Pair/ })).toBeNull();
    // Never heard from: nothing to keep.
    expect(row('a3').querySelector('.agent-last-known')).toBeNull();
  });
});

describe('agents home: counts while the host does not answer', () => {
  it('the nav badge, the summary and the rows agree, and all read unknown once the host stopped answering', () => {
    const { store } = setup();
    store.setState({ teams: [team({ agentIds: ['a1', 'a2'] })], loaded: true });
    store.getState().setAgents([agent('a1', 'connected'), agent('a2', 'needs-scan')]);
    store.getState().setIncidents([incident('i1', { agentId: 'a2' })]);
    store.getState().linkAnswered({ at: 1, upSince: 1 });
    mount(
      store,
      <>
        <Nav route={{ name: 'home' }} />
        <AgentList />
      </>,
    );
    const summary = () => document.querySelector('.health-summary')?.textContent;
    const rowBadges = () => [...document.querySelectorAll('ul.agents .agent-health')].map((b) => b.textContent);
    const alerts = () => screen.getByRole('link', { name: /^Alerts/ }).textContent;
    expect(summary()).toBe('2 agents:● 1 connected,↻ 0 reconnecting,▣ 1 needs a QR scan,✕ 0 unreachable');
    expect(rowBadges()).toEqual(['▣ Needs a QR scan', '● Connected']);
    expect(alerts()).toBe('Alerts1, 1 open');
    act(() => store.getState().linkFailed({ kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'no answer' }));
    expect(rowBadges()).toEqual(['? Unknown', '? Unknown']);
    expect(summary()).toBe('2 agents:? health unknown while the companion is not answering');
    expect(alerts()).toBe('Alerts?, open count unknown');
  });
});

describe('agent timeline', () => {
  it("a resolved incident's heading and its closing line tell one length: the title's", () => {
    const { store } = setup({ 'health.history': { ok: true, value: [] } });
    store.getState().setIncidents([
      incident('i1', {
        kind: 'reconnecting',
        severity: 'warning',
        title: 'a1 is back to connected after 40 s',
        openedAt: 1000,
        resolvedAt: 61_000,
      }),
    ]);
    mount(store, <Timeline teamId="t1" agentId="a1" now={121_000} />);
    const item = document.querySelector('li.incident')!;
    expect(item.querySelector('strong')?.textContent).toBe('Resolved: a1 is back to connected after 40 s');
    expect(item.textContent).not.toContain('resolved after');
    expect(item.querySelector('p.muted')?.textContent).toBe('Opened 2 min ago · resolved 1 min ago');
  });
});

describe('agent page', () => {
  it('shows availability over 24 h, 7 d and 30 d with the observed time, and reads it again when the health changes', async () => {
    const H = 3_600_000;
    const answers = [
      {
        at: 0,
        windows: [
          { windowMs: 24 * H, observedMs: 20 * H, upMs: 19.9 * H },
          { windowMs: 168 * H, observedMs: 100 * H, upMs: 100 * H },
          { windowMs: 720 * H, observedMs: 0, upMs: 0 },
        ],
      },
      { at: 1, windows: [{ windowMs: 24 * H, observedMs: 24 * H, upMs: 12 * H }] },
    ];
    const { store, calls } = setup({
      'health.availability': () => ({
        ok: true,
        value: answers[calls.filter((c) => c.name === 'health.availability').length - 1],
      }),
    });
    store.getState().setAgents([agent('a1', 'connected')]);
    store.setState({ teams: [team()] });
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    const card = () => screen.getByRole('region', { name: 'Availability' });
    expect(calls.find((c) => c.name === 'health.availability')?.args).toEqual({ teamId: 't1', agentId: 'a1' });
    const figures = () =>
      [...card().querySelectorAll('dd')].map((d) => `${d.previousElementSibling!.textContent}: ${d.textContent}`);
    expect(figures()).toEqual([
      '24 h: 99.5 % connected · observed 20 h of 24 h',
      '7 d: 100 % connected · observed 4 d 4 h of 7 d',
      '30 d: not observed (no record in 30 d)',
    ]);
    act(() => store.getState().applyHealth({ ...agent('a1', 'reconnecting').health, since: 5, checkedAt: 5 }));
    await flush();
    expect(figures()).toEqual(['24 h: 50.0 % connected · observed 24 h of 24 h']);
  });

  it('a failed session read: the error and when the session was last read, never "Asking…" or "Read" beside it', async () => {
    let fail = false;
    const { store } = setup({
      'pairing.session': () =>
        fail
          ? { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'reset' } }
          : { ok: true, value: session() },
    });
    store.getState().setAgents([agent('a1', 'needs-scan')]);
    store.setState({ teams: [team()] });
    fail = true;
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    const card = () => screen.getByRole('region', { name: 'Session, as the service reports it' });
    expect(within(card()).getByRole('alert')).toBeTruthy();
    expect(card().textContent).toContain('The session has not been read yet.');
    expect(card().textContent).not.toContain('Asking the service');
    expect(card().textContent).not.toMatch(/Read /);

    // Read once, then failing again: the last read's time, and its fields.
    fail = false;
    await act(() => store.getState().pollPairing('t1', 'a1'));
    expect(card().textContent).toMatch(/Read \S/);
    fail = true;
    await act(() => store.getState().pollPairing('t1', 'a1'));
    expect(within(card()).getByRole('alert')).toBeTruthy();
    expect(card().textContent).toMatch(/Last read .+; what follows is from then\./);
    expect(card().textContent).toContain('needsScantrue');
    expect(card().textContent).not.toContain('Asking the service');
    expect(card().textContent).not.toMatch(/Read /);
  });

  it('shows the session fields exactly as reported (unknown state as-is), actions, and the timeline', async () => {
    const { store } = setup({
      'pairing.session': {
        ok: true,
        value: session({ state: 'brand-new-state', needsScan: false, linked: true, connected: false }),
      },
    });
    store.getState().setAgents([agent('a1', 'reconnecting', { state: 'brand-new-state' })]);
    store.setState({ teams: [team()] });
    store.getState().setIncidents([
      incident('i1', {
        kind: 'reconnecting',
        title: 'Reconnecting a while',
        severity: 'warning',
        resolvedAt: 61_000,
        openedAt: 1000,
      }),
    ]);
    mount(store, <AgentPage agentId="a1" teamId={null} />);
    await flush();
    expect(screen.getByRole('heading', { level: 2, name: 'Agent a1' })).toBeTruthy();
    const sessionCard = screen.getByRole('region', { name: 'Session, as the service reports it' });
    expect(sessionCard.textContent).toContain('connectedfalse');
    expect(sessionCard.textContent).toContain('linkedtrue');
    expect(sessionCard.textContent).toContain('statebrand-new-state');
    expect(sessionCard.textContent).toContain('needsScanfalse');
    expect(sessionCard.textContent).toContain('phonenull');
    const actions = screen.getByRole('navigation', { name: 'Agent actions' });
    expect(
      within(actions)
        .getAllByRole('link')
        .map((a) => a.getAttribute('href')),
    ).toEqual([
      '#/agents/a1/pairing?team=t1',
      '#/agents/a1/chat?team=t1',
      '#/console?team=t1&agent=a1',
      '#/agents/a1/settings?team=t1',
    ]);
    const timeline = screen.getByRole('region', { name: 'Incident timeline' });
    expect(timeline.textContent).toContain('Resolved: Reconnecting a while');
    expect(timeline.textContent).toMatch(/resolved [^·]+ ago/);
    // The title says what happened; the kind's code is not printed beside it.
    expect(timeline.textContent).not.toContain('(reconnecting)');
  });

  it('states the detection window from the poll interval; "Watch closely" polls the agent fast all the time and says so', async () => {
    const settings = appSettings({ pollIntervalSec: 15 });
    const { store, calls } = setup({
      'pairing.session': {
        ok: true,
        value: session({ state: 'connected', needsScan: false, linked: true, connected: true }),
      },
      'agents.watchClosely': (args: { on: boolean }) => ({
        ok: true,
        value: { ...agent('a1', 'connected'), watchClosely: args.on },
      }),
    });
    store.getState().setAgents([agent('a1', 'connected')]);
    store.setState({ teams: [team()], settings });
    mount(store, <AgentPage agentId="a1" teamId={null} />);
    await flush();
    const monitorCard = screen.getByRole('region', { name: 'Monitor' });
    expect(monitorCard.textContent).toContain('Drops shorter than about 15 s can be missed at a 15 s poll.');
    const watch = within(monitorCard).getByRole('checkbox', { name: 'Watch closely' }) as HTMLInputElement;
    expect(watch.checked).toBe(false);
    fireEvent.click(watch);
    await flush();
    expect(calls.filter((c) => c.name === 'agents.watchClosely').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', on: true },
    ]);
    expect((within(monitorCard).getByRole('checkbox', { name: 'Watch closely' }) as HTMLInputElement).checked).toBe(
      true,
    );
    expect(monitorCard.textContent).toContain('Polled every 2 s: drops shorter than about 2 s can be missed.');
  });

  it('"Watch closely" refused by the main side goes back and says why', async () => {
    const { store } = setup({
      'pairing.session': {
        ok: true,
        value: session({ state: 'connected', needsScan: false, linked: true, connected: true }),
      },
      'agents.watchClosely': {
        ok: false,
        error: { kind: 'not-found', code: 'AGENT_NOT_FOUND', message: 'Agent "a1" is not in team "t1".' },
      },
    });
    store.getState().setAgents([agent('a1', 'connected')]);
    store.setState({ teams: [team()] });
    mount(store, <AgentPage agentId="a1" teamId={null} />);
    await flush();
    const monitorCard = screen.getByRole('region', { name: 'Monitor' });
    fireEvent.click(within(monitorCard).getByRole('checkbox', { name: 'Watch closely' }));
    await flush();
    expect((within(monitorCard).getByRole('checkbox', { name: 'Watch closely' }) as HTMLInputElement).checked).toBe(
      false,
    );
    expect(monitorCard.textContent).toContain('is not in team');
  });

  it('the timeline lists the monitor history (health.history) and grows with live health changes', async () => {
    const now = Date.now();
    const { store, calls } = setup({
      'health.history': {
        ok: true,
        value: [
          { at: now - 60_000, health: 'connected', previous: 'reconnecting', state: 'open' },
          {
            at: now - 120_000,
            health: 'reconnecting',
            previous: 'connected',
            state: 'connecting',
            note: 'The link dropped.',
          },
        ],
      },
    });
    store.getState().setAgents([agent('a1', 'connected', { since: now - 60_000, checkedAt: now - 1000 })]);
    store.setState({ teams: [team()] });
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    expect(calls.find((c) => c.name === 'health.history')?.args).toEqual({ teamId: 't1', agentId: 'a1' });
    const changes = () => within(screen.getByRole('list', { name: 'Health changes' })).getAllByRole('listitem');
    expect(changes()).toHaveLength(2);
    expect(changes()[0]!.textContent).toContain('Reconnecting — recovers on its own → Connected');
    expect(changes()[1]!.textContent).toContain('The link dropped.');
    expect(changes()[1]!.textContent).toContain('state connecting');

    // A live change (health.changed → applyHealth) is added on top; a poll that changes nothing adds nothing.
    act(() =>
      store.getState().applyHealth({
        ...agent('a1', 'needs-scan').health,
        state: 'unlinked',
        since: now - 500,
        checkedAt: now - 500,
      }),
    );
    expect(changes()).toHaveLength(3);
    expect(changes()[0]!.textContent).toContain('Connected → Needs a QR scan');
    expect(changes()[0]!.textContent).toContain('state unlinked');
    act(() =>
      store
        .getState()
        .applyHealth({ ...agent('a1', 'needs-scan').health, state: 'unlinked', since: now - 500, checkedAt: now }),
    );
    expect(changes()).toHaveLength(3);
  });

  it('for a linked agent draws a wa.me QR of its phone, digits only', async () => {
    const phone = '+1 (555) 000-1111';
    const { store } = setup({
      'pairing.session': {
        ok: true,
        value: session({ state: 'open', connected: true, linked: true, needsScan: false, phone }),
      },
    });
    store.getState().setAgents([agent('a1', 'connected', { phone })]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    // While the QR package loads, an empty frame of the image's size holds its place.
    const placeholder = document.querySelector('.wame .qr[aria-busy="true"]') as HTMLElement | null;
    expect(placeholder?.style.width).toBe('200px');
    expect(placeholder?.style.height).toBe('200px');
    expect(screen.queryByRole('img', { name: /WhatsApp chat/ })).toBeNull();
    const img = await waitFor(() => screen.getByRole('img', { name: /WhatsApp chat with \+15550001111/ }));
    expect(document.querySelector('.wame [aria-busy="true"]')).toBeNull();
    expect(img.getAttribute('data-qr-text')).toBe('https://wa.me/15550001111');
    expect(img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // Linked: Chat is the primary action, Pair a secondary one.
    const actions = within(screen.getByRole('navigation', { name: 'Agent actions' }));
    expect(actions.getByRole('link', { name: 'Pair' }).className).toBe('button secondary');
    expect(actions.getByRole('link', { name: 'Chat' }).className).toBe('button');
    expect(actions.getAllByRole('link').filter((a) => !a.classList.contains('secondary'))).toHaveLength(1);
  });

  it('an agent that needs a scan has Pair as its one primary action', () => {
    const { store } = setup();
    store.getState().setAgents([agent('a1', 'needs-scan')]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    const actions = within(screen.getByRole('navigation', { name: 'Agent actions' }));
    expect(
      actions
        .getAllByRole('link')
        .filter((a) => !a.classList.contains('secondary'))
        .map((a) => a.textContent),
    ).toEqual(['Pair']);
  });

  it('an unknown agent gets an empty state, not a crash', () => {
    const { store } = setup();
    mount(store, <AgentPage agentId="ghost" teamId="t1" />);
    expect(screen.getByText('This agent is not in any of your teams.')).toBeTruthy();
  });
});

describe('agents home: Add agent', () => {
  it('adds an agent to the chosen team from the home screen and opens its page', async () => {
    const { store, calls } = setup({ 'agents.add': { ok: true, value: null } });
    store.setState({
      teams: [team({ agentIds: ['a1'] }), team({ teamId: 't2', label: 'Sales', agentIds: [] })],
      loaded: true,
    });
    store.getState().setAgents([agent('a1', 'connected')]);
    window.location.hash = '#/';
    mount(store, <AgentList />);
    fireEvent.click(screen.getByRole('button', { name: 'Add agent' }));
    const panel = screen.getByRole('region', { name: 'Add an agent' });
    expect(document.activeElement).toBe(within(panel).getByLabelText('Team'));
    fireEvent.change(within(panel).getByLabelText('Team'), { target: { value: 't2' } });
    fireEvent.change(within(panel).getByLabelText('Agent ID'), { target: { value: ' agent-new ' } });
    fireEvent.submit(within(panel).getByRole('form', { name: 'Add an agent to Sales' }));
    await flush();
    expect(calls.filter((c) => c.name === 'agents.add').map((c) => c.args)).toEqual([
      { teamId: 't2', agentId: 'agent-new' },
    ]);
    expect(window.location.hash).toBe('#/agents/agent-new?team=t2');
  });

  it('with no team yet says to add one first', () => {
    const { store } = setup();
    store.setState({ teams: [], loaded: true });
    mount(store, <AgentList />);
    fireEvent.click(screen.getByRole('button', { name: 'Add agent' }));
    expect(screen.getByRole('region', { name: 'Add an agent' }).textContent).toContain('Add a team first');
  });
});
