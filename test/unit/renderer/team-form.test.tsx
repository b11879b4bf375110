// @vitest-environment jsdom
// The team form's "Allow plain HTTP" switch: off by default, and sent with teams.add only when on.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamForm } from '../../../src-renderer/src/features/onboarding/TeamForm';
import { LABEL_MAX_LENGTH } from '../../../src-shared/limits';
import { flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

function fill(baseUrl: string) {
  fireEvent.change(screen.getByLabelText('Team name'), { target: { value: 'Lab' } });
  fireEvent.change(screen.getByLabelText('Service address'), { target: { value: baseUrl } });
  fireEvent.change(screen.getByLabelText('Team API key'), { target: { value: 'sk_lab_123456789' } });
  fireEvent.change(screen.getByLabelText('Agent IDs (from the dashboard, comma separated)'), {
    target: { value: 'a1' },
  });
}

describe('TeamForm: plain HTTP', () => {
  it('is off by default and not sent; the refusal marks the address', async () => {
    const refusal = {
      kind: 'validation' as const,
      code: 'INVALID',
      field: 'baseUrl',
      message: 'Invalid team: baseUrl: The API key would travel unencrypted to lab.example:8787 …',
    };
    const t = setup({ 'teams.add': { ok: false, error: refusal } });
    mount(t.store, <TeamForm />);
    const box = screen.getByLabelText('Allow plain HTTP to this address') as HTMLInputElement;
    expect(box.checked).toBe(false);
    expect(box.getAttribute('aria-describedby')).toBeTruthy();
    fill('http://lab.example:8787');
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'teams.add')?.args).toEqual({
      label: 'Lab',
      baseUrl: 'http://lab.example:8787',
      apiKey: 'sk_lab_123456789',
      agents: [{ agentId: 'a1' }],
    });
    expect(screen.getByLabelText('Service address').getAttribute('aria-invalid')).toBe('true');
  });

  it('when switched on, teams.add carries allowInsecureHttp: true', async () => {
    const t = setup({
      'teams.add': { ok: true, value: team({ baseUrl: 'http://lab.example:8787', allowInsecureHttp: true }) },
      'teams.list': { ok: true, value: [] },
      'agents.list': { ok: true, value: [] },
    });
    mount(t.store, <TeamForm />);
    fill('http://lab.example:8787');
    fireEvent.click(screen.getByLabelText('Allow plain HTTP to this address'));
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'teams.add')?.args).toMatchObject({
      baseUrl: 'http://lab.example:8787',
      allowInsecureHttp: true,
    });
  });
});

describe('TeamForm: label length', () => {
  it('the team name takes no more characters than a label may have', () => {
    const t = setup();
    mount(t.store, <TeamForm />);
    expect((screen.getByLabelText('Team name') as HTMLInputElement).maxLength).toBe(LABEL_MAX_LENGTH);
    expect(LABEL_MAX_LENGTH).toBe(64);
  });
});
