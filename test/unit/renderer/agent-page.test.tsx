// @vitest-environment jsdom
// An agent's page when things go wrong: a failed poll never reads "not polled yet" beside its time,
// one error box (not the session read's and the poll's), and Pair is the filled button whenever the
// agent is not linked, as the monitor or the session read says.
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorDTO } from '../../../src-shared/contract';
import { AgentPage } from '../../../src-renderer/src/features/agents/AgentPage';
import { agent, flush, mount, session, setup, team } from './fixtures';

afterEach(cleanup);

const DOWN: ErrorDTO = { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'connect ECONNREFUSED' };

const monitor = () => screen.getByRole('region', { name: 'Monitor' });
const actions = () => screen.getByRole('navigation', { name: 'Agent actions' });

describe('agent page', () => {
  it('a failed poll: the raw state says the poll failed (never "not polled yet" beside its time), and one error box', async () => {
    const now = Date.now();
    const { store } = setup({ 'pairing.session': { ok: false, error: DOWN } });
    store.setState({ teams: [team()] });
    store
      .getState()
      .setAgents([
        agent('a1', 'unreachable', { state: null, checkedAt: now - 11_000, error: DOWN, since: now - 60_000 }),
      ]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    const fields = monitor().textContent ?? '';
    expect(fields).toMatch(/last poll11 s ago/);
    expect(fields).not.toContain('not polled yet');
    expect(fields).toContain('state (raw)none: the last poll failed');
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(within(monitor()).queryByRole('alert')).toBeNull();
    expect(fields).toContain('failed (the error is in the session card)');
  });

  it("the monitor's failed poll shows its error when the session card has none", async () => {
    const { store } = setup({ 'pairing.session': { ok: true, value: session({ linked: true, needsScan: false }) } });
    store.setState({ teams: [team()] });
    store.getState().setAgents([agent('a1', 'unreachable', { state: null, checkedAt: Date.now(), error: DOWN })]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    expect(within(monitor()).getAllByRole('alert')).toHaveLength(1);
  });

  it('an agent the session read says is not linked: Pair is the filled button, Chat is not', async () => {
    const { store } = setup({ 'pairing.session': { ok: true, value: session({ linked: false, needsScan: false }) } });
    store.setState({ teams: [team()] });
    // The monitor has not read it yet (unknown): the session read decides.
    store.getState().setAgents([agent('a1', 'unknown')]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    expect(within(actions()).getByRole('link', { name: 'Pair' }).className).toBe('button');
    expect(within(actions()).getByRole('link', { name: 'Chat' }).className).toBe('button secondary');
  });

  it('a linked agent keeps Chat first', async () => {
    const { store } = setup({
      'pairing.session': { ok: true, value: session({ linked: true, connected: true, needsScan: false }) },
    });
    store.setState({ teams: [team()] });
    store.getState().setAgents([agent('a1', 'connected')]);
    mount(store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    expect(within(actions()).getByRole('link', { name: 'Chat' }).className).toBe('button');
    expect(within(actions()).getByRole('link', { name: 'Pair' }).className).toBe('button secondary');
  });
});
