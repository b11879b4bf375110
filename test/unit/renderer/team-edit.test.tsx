// @vitest-environment jsdom
// Settings → Teams and keys → Edit team: only what changed is sent (an empty key field keeps the key),
// the team keeps its id, a refusal is shown beside the field at fault and keeps what was typed.
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamDTO } from '../../../src-shared/contract';
import { TeamsManager } from '../../../src-renderer/src/features/settings/TeamsManager';
import { flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

describe('editing a team', () => {
  it('sends only what changed, keeps the id, and shows a rejected key beside the key field', async () => {
    let current: TeamDTO = team({ teamId: 't1', label: 'Ops', baseUrl: 'https://api.example.test' });
    let reject = true;
    const t = setup({
      'teams.list': () => ({ ok: true, value: [current] }),
      'teams.update': (a: unknown) => {
        const args = a as { teamId: string; label?: string; apiKey?: string };
        if (reject && args.apiKey !== undefined)
          return {
            ok: false,
            error: { kind: 'key-rejected', code: 'KEY_REJECTED', message: 'The API key was rejected by the service.' },
          };
        current = { ...current, ...(args.label !== undefined ? { label: args.label } : {}) };
        return { ok: true, value: current };
      },
    });
    t.store.setState({ teams: [current] });
    mount(t.store, <TeamsManager />);
    fireEvent.click(screen.getByRole('button', { name: 'Edit team Ops' }));
    const form = screen.getByRole('form', { name: 'Edit team Ops' });
    fireEvent.change(within(form).getByLabelText('Team name'), { target: { value: 'Operations' } });
    fireEvent.change(within(form).getByLabelText('New API key (optional)'), { target: { value: 'wrong-key-123456' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save team' }));
    await flush();
    const updates = () => t.calls.filter((c) => c.name === 'teams.update').map((c) => c.args);
    expect(updates()).toEqual([{ teamId: 't1', label: 'Operations', apiKey: 'wrong-key-123456' }]);
    const key = within(form).getByLabelText('New API key (optional)') as HTMLInputElement;
    expect(key.getAttribute('aria-invalid')).toBe('true');
    expect(key.value).toBe('wrong-key-123456');
    expect(form.textContent).toContain('rejected');

    // The key emptied: it is kept, and only the name goes.
    reject = false;
    fireEvent.change(key, { target: { value: '' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save team' }));
    await flush();
    expect(updates().at(-1)).toEqual({ teamId: 't1', label: 'Operations' });
    expect(screen.queryByRole('form', { name: /Edit team/ })).toBeNull();
    expect(screen.getByRole('article', { name: 'Team Operations' })).toBeTruthy();
    expect(t.store.getState().teams.map((x) => [x.teamId, x.label])).toEqual([['t1', 'Operations']]);
  });
});
