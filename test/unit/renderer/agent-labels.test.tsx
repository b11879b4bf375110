// @vitest-environment jsdom
// Agent labels on the screens: the Agents screen's label filter (the labels present, with their counts) and
// each row's chips; the agent page's editor (add several at once, remove one, a bad label said and not sent).
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDTO } from '../../../src-shared/contract';
import { AgentList } from '../../../src-renderer/src/features/agents/AgentList';
import { AgentPage } from '../../../src-renderer/src/features/agents/AgentPage';
import { agent, flush, mount, session, setup, team } from './fixtures';

afterEach(cleanup);

const labelled = (a: AgentDTO, labels: string[]): AgentDTO => ({ ...a, labels });

describe('agents home: the label filter', () => {
  it('lists the labels present with their counts, keeps the agents with the label, and combines with health and team', () => {
    const { store } = setup();
    store.setState({
      teams: [team({ agentIds: ['a1', 'a2', 'a3'] }), team({ teamId: 't2', label: 'Sales', agentIds: ['b1'] })],
      loaded: true,
    });
    store
      .getState()
      .setAgents([
        labelled(agent('a1', 'connected'), ['billing', 'eu']),
        labelled(agent('a2', 'needs-scan'), ['eu']),
        agent('a3', 'connected'),
        labelled(agent('b1', 'connected', {}, 't2'), ['billing', 'eu', 'tier.1', 'vip']),
      ]);
    mount(store, <AgentList />);
    const names = () => screen.getAllByRole('listitem').map((r) => r.querySelector('.agent-label')?.textContent);
    const select = screen.getByLabelText('Label') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual([
      'Any label',
      'billing (2)',
      'eu (3)',
      'tier.1 (1)',
      'vip (1)',
    ]);

    fireEvent.change(select, { target: { value: 'billing' } });
    expect(names()).toEqual(['Agent a1', 'Agent b1']);
    expect(screen.getByRole('status').textContent).toBe('2 of 4 agents');
    fireEvent.change(screen.getByLabelText('Team'), { target: { value: 't1' } });
    expect(names()).toEqual(['Agent a1']);
    fireEvent.change(screen.getByLabelText('Team'), { target: { value: '' } });
    fireEvent.change(select, { target: { value: 'eu' } });
    fireEvent.change(screen.getByLabelText('Health'), { target: { value: 'connected' } });
    expect(names()).toEqual(['Agent a1', 'Agent b1']);
    // Words find labels too.
    fireEvent.change(select, { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('Filter agents'), { target: { value: 'vip' } });
    expect(names()).toEqual(['Agent b1']);
  });

  it('a row shows its first three labels as chips and how many more; an agent without labels shows none', () => {
    const { store } = setup();
    store.setState({ teams: [team({ agentIds: ['a1', 'a2'] })], loaded: true });
    store
      .getState()
      .setAgents([labelled(agent('a1', 'connected'), ['a', 'b', 'c', 'd', 'e']), agent('a2', 'connected')]);
    mount(store, <AgentList />);
    const [first, second] = screen.getAllByRole('listitem', { name: '' }).filter((r) => r.matches('.agent'));
    const chips = within(first!).getByRole('list', { name: 'Labels: a, b, c, d, e' });
    expect([...chips.querySelectorAll('.label-chip')].map((c) => c.textContent)).toEqual(['a', 'b', 'c', '+2']);
    expect(second!.querySelector('.label-chips')).toBeNull();
    // No agent has a label: no label filter.
    act(() => store.getState().setAgents([agent('a1', 'connected'), agent('a2', 'connected')]));
    expect(screen.queryByLabelText('Label')).toBeNull();
  });

  it('the filter follows a label change of one agent without a new list', async () => {
    const { store } = setup({
      'agents.setLabels': (args: { add?: string[] }) => ({
        ok: true,
        value: labelled(agent('a2', 'connected'), ['eu', ...(args.add ?? [])].sort()),
      }),
    });
    store.setState({ teams: [team({ agentIds: ['a1', 'a2'] })], loaded: true });
    store
      .getState()
      .setAgents([labelled(agent('a1', 'connected'), ['eu']), labelled(agent('a2', 'connected'), ['eu'])]);
    mount(store, <AgentList />);
    fireEvent.change(screen.getByLabelText('Label'), { target: { value: 'eu' } });
    await act(async () => {
      await store.getState().setAgentLabels('t1', 'a2', { add: ['vip'] });
    });
    const select = screen.getByLabelText('Label') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['Any label', 'eu (2)', 'vip (1)']);
    fireEvent.change(select, { target: { value: 'vip' } });
    expect(screen.getAllByRole('listitem').filter((r) => r.matches('.agent')).length).toBe(1);
  });
});

describe('agent page: the labels editor', () => {
  it('adds several labels at once (normalised), removes one, and says a bad label without sending it', async () => {
    let labels = ['eu'];
    const { store, calls } = setup({
      'pairing.session': { ok: true, value: session({ state: 'connected', linked: true, connected: true }) },
      'agents.setLabels': (args: { add?: string[]; remove?: string[] }) => {
        labels = [...new Set([...labels, ...(args.add ?? [])])].filter((l) => !args.remove?.includes(l)).sort();
        return { ok: true, value: labelled(agent('a1', 'connected'), labels) };
      },
    });
    store.getState().setAgents([labelled(agent('a1', 'connected'), ['eu'])]);
    store.setState({ teams: [team()] });
    mount(store, <AgentPage agentId="a1" teamId={null} />);
    await flush();
    const card = screen.getByRole('region', { name: 'Labels' });
    const field = within(card).getByLabelText('Add labels') as HTMLInputElement;

    fireEvent.change(field, { target: { value: 'Bad Label!' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Add' }));
    await flush();
    expect(within(card).getByRole('alert').textContent).toContain('"Label!"');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.name === 'agents.setLabels')).toEqual([]);

    fireEvent.change(field, { target: { value: 'VIP, billing' } });
    fireEvent.submit(field.form!);
    await flush();
    expect(calls.filter((c) => c.name === 'agents.setLabels').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', add: ['billing', 'vip'] },
    ]);
    expect(field.value).toBe('');
    const chips = () =>
      within(card)
        .getAllByRole('listitem')
        .map((li) => li.firstChild?.textContent);
    expect(chips()).toEqual(['billing', 'eu', 'vip']);

    fireEvent.click(within(card).getByRole('button', { name: 'Remove label eu' }));
    await flush();
    expect(calls.filter((c) => c.name === 'agents.setLabels').at(-1)!.args).toEqual({
      teamId: 't1',
      agentId: 'a1',
      remove: ['eu'],
    });
    expect(chips()).toEqual(['billing', 'vip']);
  });

  it('on a hub whose role may not change labels, the editor stays in view, disabled, saying why', async () => {
    const { store } = setup({
      'pairing.session': { ok: true, value: session({ state: 'connected', linked: true, connected: true }) },
    });
    store.getState().setAgents([labelled(agent('a1', 'connected'), ['eu'])]);
    store.setState({
      teams: [team()],
      hub: { url: 'https://hub.example.test', member: 'dev', role: 'developer', publicUrl: null, problem: null },
    });
    mount(store, <AgentPage agentId="a1" teamId={null} />);
    await flush();
    const card = screen.getByRole('region', { name: 'Labels' });
    const add = within(card).getByRole('button', { name: 'Add' }) as HTMLButtonElement;
    const remove = within(card).getByRole('button', { name: 'Remove label eu' }) as HTMLButtonElement;
    expect([
      add.disabled,
      remove.disabled,
      (within(card).getByLabelText('Add labels') as HTMLInputElement).disabled,
    ]).toEqual([true, true, true]);
    const why = document.getElementById(add.getAttribute('aria-describedby')!.split(' ').at(-1)!)!.textContent;
    expect(why).toContain("change an agent's labels");
  });
});
