// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { connectStore, createAppStore } from '../../../../src-renderer/src/store';
import { selectHealthCounts, selectWorst } from '../../../../src-renderer/src/store/agents';
import { sortedKeys } from '../../../../src-renderer/src/store/agent-order';
import { HEALTHS, type AgentDTO, type TeamDTO } from '../../../../src-shared/contract';
import { fakeApi } from '../fake-api';

const team: TeamDTO = {
  teamId: 't1',
  label: 'Ops',
  baseUrl: 'https://api.example.test',
  keyHint: '…9f2c',
  keyRejected: false,
  agentIds: ['a1', 'a2'],
};
const agent = (agentId: string, health: AgentDTO['health']['health']): AgentDTO => ({
  teamId: 't1',
  agentId,
  label: agentId,
  health: { teamId: 't1', agentId, health, state: null, phone: null, needsScan: false, since: 0, checkedAt: null },
  watchClosely: false,
  labels: [],
});

const flush = () => new Promise((r) => setTimeout(r, 0));
/** Health events are committed in a frame, at most every 250 ms: here each frame and each wait end at once. */
const FRAMES_AT_ONCE = { nextFrame: (fn: () => void) => fn(), later: (_ms: number, fn: () => void) => fn() };

describe('agents slice in the assembled store', () => {
  it('keeps health that arrives before the agent list, and a list answer never rolls newer health back', async () => {
    let answerList: (v: unknown) => void = () => undefined;
    const { api, emit } = fakeApi({
      'teams.list': { ok: true, value: [team] },
      // The list answer is held back: health events overtake it.
      'agents.list': () => new Promise((r) => (answerList = r)) as never,
    });
    const store = createAppStore(api, FRAMES_AT_ONCE);
    connectStore(store, api);
    await flush();
    const polled = (agentId: string, health: AgentDTO['health']['health'], checkedAt: number) => ({
      ...agent(agentId, health).health,
      since: checkedAt,
      checkedAt,
    });
    emit('health.changed', polled('a1', 'needs-scan', 5_000));
    emit('health.changed', polled('a2', 'connected', 4_000));
    emit('health.changed', polled('a2', 'reconnecting', 3_000)); // older than the one already held
    expect(store.getState().agents).toEqual({});
    expect(Object.keys(store.getState().healthBuffer).sort()).toEqual(['t1/a1', 't1/a2']);

    // The list was read before those polls (a1 checked at 1 000) — or after (a2 checked at 9 000).
    const a1 = { ...agent('a1', 'connected'), health: polled('a1', 'connected', 1_000) };
    const a2 = { ...agent('a2', 'unreachable'), health: polled('a2', 'unreachable', 9_000) };
    answerList({ ok: true, value: [a1, a2] });
    await flush();
    await flush();
    const s = store.getState();
    expect(s.agents['t1/a1']?.health).toMatchObject({ health: 'needs-scan', checkedAt: 5_000 });
    expect(s.agents['t1/a2']?.health).toMatchObject({ health: 'unreachable', checkedAt: 9_000 });
    expect(s.healthBuffer).toEqual({});
    expect(selectWorst(s)).toBe('needs-scan');

    // A refresh whose list is older than a health event already applied keeps the event's health.
    emit('health.changed', polled('a2', 'connected', 12_000));
    s.setAgents([a1, a2]);
    expect(store.getState().agents['t1/a2']?.health).toMatchObject({ health: 'connected', checkedAt: 12_000 });
  });

  it('loads teams, agents and alerts through the bridge on connect', async () => {
    const { api } = fakeApi({
      'teams.list': { ok: true, value: [team] },
      'agents.list': { ok: true, value: [agent('a1', 'connected'), agent('a2', 'unknown')] },
    });
    const store = createAppStore(api, FRAMES_AT_ONCE);
    expect(store.getState().loaded).toBe(false);
    connectStore(store, api);
    await flush();
    const s = store.getState();
    expect(s.loaded).toBe(true);
    expect(s.teams).toEqual([team]);
    expect(Object.keys(s.agents)).toEqual(['t1/a1', 't1/a2']);
    expect(selectWorst(s)).toBe('unknown');
  });

  it('applies live health and alert events; disconnect stops them', async () => {
    const { api, emit, listeners } = fakeApi({
      'teams.list': { ok: true, value: [team] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    });
    const store = createAppStore(api, FRAMES_AT_ONCE);
    const disconnect = connectStore(store, api);
    await flush();
    const before = store.getState().agents['t1/a1'];
    emit('health.changed', { ...agent('a1', 'needs-scan').health, needsScan: true });
    expect(store.getState().agents['t1/a1']?.health.health).toBe('needs-scan');
    expect(store.getState().agents['t1/a1']).not.toBe(before);
    expect(selectWorst(store.getState())).toBe('needs-scan');
    // health for an agent not listed (yet) is held aside, not shown
    emit('health.changed', { ...agent('zz', 'unreachable').health });
    expect(Object.keys(store.getState().agents)).toEqual(['t1/a1']);
    expect(Object.keys(store.getState().healthBuffer)).toEqual(['t1/zz']);

    const incident = {
      id: 'i1',
      teamId: 't1',
      agentId: 'a1',
      kind: 'needs-scan',
      severity: 'urgent' as const,
      title: 'Scan',
      message: 'm',
      openedAt: 1,
      acknowledgedAt: null,
      resolvedAt: null,
      endedAt: null,
      durationMs: null,
    };
    emit('alert', { change: 'opened', incident, notify: true });
    expect(store.getState().incidents).toEqual([incident]);
    emit('alert', { change: 'resolved', incident, notify: true });
    expect(store.getState().incidents).toEqual([]);

    emit('app.navigate', { route: '#/agents/a1?team=t1' });
    expect(store.getState().route).toBe('#/agents/a1?team=t1');

    disconnect();
    expect([...listeners.values()].every((s) => s.size === 0)).toBe(true);
  });

  it('addTeam sends the key once and reloads; an error comes back for the form', async () => {
    let teams: TeamDTO[] = [];
    const { api, calls } = fakeApi({
      'teams.list': () => ({ ok: true, value: teams }),
      'teams.add': (args: unknown) => {
        const a = args as { apiKey: string };
        if (a.apiKey.length < 8)
          return {
            ok: false,
            error: { kind: 'validation', code: 'INVALID_ARGUMENTS', message: 'apiKey: too short', field: 'apiKey' },
          };
        teams = [team];
        return { ok: true, value: team };
      },
    });
    const store = createAppStore(api, FRAMES_AT_ONCE);
    const bad = await store
      .getState()
      .addTeam({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: 'short', agentIds: [] });
    expect(bad).toMatchObject({ kind: 'validation', field: 'apiKey' });
    expect(store.getState().teams).toEqual([]);
    const ok = await store
      .getState()
      .addTeam({ label: 'Ops', baseUrl: 'https://api.example.test', apiKey: 'sk_live_9f2c9f2c', agentIds: ['a1'] });
    expect(ok).toBeNull();
    expect(store.getState().teams).toEqual([team]);
    expect(
      calls.find((c) => c.name === 'teams.add' && (c.args as { apiKey: string }).apiKey === 'sk_live_9f2c9f2c')?.args,
    ).toEqual({
      label: 'Ops',
      baseUrl: 'https://api.example.test',
      apiKey: 'sk_live_9f2c9f2c',
      agents: [{ agentId: 'a1' }],
    });
    expect(JSON.stringify(store.getState())).not.toContain('sk_live');
  });

  it('startDemo calls demo.start and reloads; refresh surfaces the first error', async () => {
    const { api, calls } = fakeApi({
      'alerts.status': { ok: false, error: { kind: 'internal', code: 'NOT_WIRED', message: 'not wired' } },
    });
    const store = createAppStore(api, FRAMES_AT_ONCE);
    expect(await store.getState().startDemo()).toBeNull();
    expect(calls.map((c) => c.name)).toContain('demo.start');
    expect(store.getState().lastError).toMatchObject({ code: 'NOT_WIRED' });
  });

  it('keeps the order (the same array) for a poll that changes only what a row shows, and moves one agent for a new health', () => {
    const store = createAppStore(fakeApi({}).api, FRAMES_AT_ONCE);
    store.setState({ teams: [{ ...team, agentIds: ['a1', 'a2', 'a3'] }] });
    store.getState().setAgents([agent('a1', 'connected'), agent('a2', 'reconnecting'), agent('a3', 'connected')]);
    const order = store.getState().agentOrder;
    expect(order).toEqual(['t1/a2', 't1/a1', 't1/a3']);
    const a3 = store.getState().agents['t1/a3'];

    store.getState().applyHealth({ ...agent('a1', 'connected').health, checkedAt: 5_000 });
    expect(store.getState().agentOrder).toBe(order);
    expect(store.getState().agents['t1/a3']).toBe(a3);
    expect(store.getState().agents['t1/a1']?.health.checkedAt).toBe(5_000);

    // A new number: the same order in a new array (the screen's filters match numbers).
    store.getState().applyHealth({ ...agent('a1', 'connected').health, phone: '15550001111', checkedAt: 6_000 });
    expect(store.getState().agentOrder).not.toBe(order);
    expect(store.getState().agentOrder).toEqual(order);

    store.getState().applyHealth({ ...agent('a3', 'needs-scan').health, since: 7_000, checkedAt: 7_000 });
    expect(store.getState().agentOrder).toEqual(['t1/a3', 't1/a2', 't1/a1']);
    expect(selectWorst(store.getState())).toBe('needs-scan');
    expect(selectHealthCounts(store.getState())).toMatchObject({ connected: 1, reconnecting: 1, 'needs-scan': 1 });
  });

  it('commits the health events that arrive before a frame in one store update, the next ones no sooner than 250 ms later', async () => {
    const frames: Array<() => void> = [];
    const waits: Array<[number, () => void]> = [];
    const clock = { t: 1_000_000 };
    const { api, emit } = fakeApi({
      'teams.list': { ok: true, value: [{ ...team, agentIds: ['a1', 'a2'] }] },
      'agents.list': { ok: true, value: [agent('a1', 'connected'), agent('a2', 'connected')] },
    });
    const store = createAppStore(api, {
      now: () => clock.t,
      nextFrame: (fn) => frames.push(fn),
      later: (ms, fn) => waits.push([ms, fn]),
    });
    connectStore(store, api);
    await flush();
    let updates = 0;
    store.subscribe(() => updates++);
    emit('health.changed', { ...agent('a1', 'connected').health, checkedAt: 1_000 });
    emit('health.changed', { ...agent('a2', 'reconnecting').health, since: 1_000, checkedAt: 1_000 });
    emit('health.changed', { ...agent('a1', 'connected').health, checkedAt: 2_000 });
    expect(updates).toBe(0);
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(updates).toBe(1);
    expect(store.getState().agents['t1/a1']?.health.checkedAt).toBe(2_000);
    expect(store.getState().agentOrder).toEqual(['t1/a2', 't1/a1']);

    // 100 ms later: the next events wait out the rest of the 250 ms, then a frame.
    clock.t += 100;
    emit('health.changed', { ...agent('a1', 'connected').health, checkedAt: 3_000 });
    expect(frames).toHaveLength(0);
    expect(waits.map(([ms]) => ms)).toEqual([150]);
    waits.shift()![1]();
    expect(updates).toBe(1);
    frames.shift()!();
    expect(updates).toBe(2);
    expect(store.getState().agents['t1/a1']?.health.checkedAt).toBe(3_000);
  });

  it('applies a batch of health events without copying the agents record; order and counts stay those of the whole team', () => {
    const store = createAppStore(fakeApi({}).api, FRAMES_AT_ONCE);
    const ids = Array.from({ length: 300 }, (_, i) => `a${String(i).padStart(3, '0')}`);
    store.setState({ teams: [{ ...team, agentIds: ids }] });
    store.getState().setAgents(ids.map((id, i) => agent(id, HEALTHS[i % HEALTHS.length]!)));
    const record = store.getState().agents;
    const untouched = record['t1/a299'];
    let updates = 0;
    store.subscribe(() => updates++);
    // Rounds of batches, some over a hundred agents moving at once, some changing only the time of the poll.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let round = 0; round < 12; round++) {
      const batch = Array.from({ length: round % 3 === 0 ? 150 : 5 }, () => {
        const id = ids[next(299)]!;
        const moves = next(2) === 0;
        return {
          ...agent(id, moves ? HEALTHS[next(HEALTHS.length)]! : store.getState().agents[`t1/${id}`]!.health.health)
            .health,
          since: moves ? next(1_000) : store.getState().agents[`t1/${id}`]!.health.since,
          checkedAt: 1_000 + round,
        };
      });
      store.getState().applyHealthBatch(batch);
      const s = store.getState();
      expect(s.agents).toBe(record);
      expect(s.agentOrder).toEqual(sortedKeys(s.agents, s.teams));
      const counts = Object.fromEntries(HEALTHS.map((h) => [h, 0]));
      for (const a of Object.values(s.agents)) counts[a.health.health]!++;
      expect(selectHealthCounts(s)).toEqual(counts);
      expect(selectWorst(s)).toBe(s.agents[s.agentOrder[0]!]!.health.health);
    }
    expect(updates).toBe(12);
    expect(store.getState().agents['t1/a299']).toBe(untouched);
    // A list answer is a new record, counted afresh.
    store.getState().setAgents([agent('zz', 'needs-scan')]);
    expect(store.getState().agents).not.toBe(record);
    expect(selectHealthCounts(store.getState())).toMatchObject({ 'needs-scan': 1, connected: 0 });
  });
});
