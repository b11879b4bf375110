// Refused input in people's words: the field's name as its form shows it, the rule said plainly,
// a schema's own message kept, and the field's path beside the words.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { inputProblem, issuesAt, ruleWords } from '../../../src-main/core/input-words';

function problem(schema: z.ZodType, input: unknown, names?: Record<string, string>) {
  const r = schema.safeParse(input, { error: ruleWords });
  if (r.success) throw new Error('accepted');
  return inputProblem(r.error, names);
}

describe('input words', () => {
  it("says limits plainly after the field name, never zod's own text", () => {
    const s = z.strictObject({
      label: z.string().max(64),
      pollIntervalSec: z.number().int().min(5),
      agents: z.array(z.string()).min(1),
      theme: z.enum(['light', 'dark']),
    });
    const ok = { label: 'x', pollIntervalSec: 5, agents: ['a'], theme: 'light' };
    expect(problem(s, { ...ok, label: 'x'.repeat(65) })).toEqual({
      field: 'label',
      message: 'Label must be at most 64 characters.',
    });
    expect(problem(s, { ...ok, label: 'x'.repeat(65) }, { label: 'Team name' }).message).toBe(
      'Team name must be at most 64 characters.',
    );
    expect(problem(s, { ...ok, pollIntervalSec: 1 }).message).toBe('Poll interval must be at least 5.');
    expect(problem(s, { ...ok, agents: [] }).message).toBe('Agent IDs must list at least one.');
    expect(problem(s, { ...ok, theme: 'blue' }).message).toBe('Theme must be one of light, dark.');
    expect(problem(s, { ...ok, label: undefined }).message).toBe('Label is missing.');
    expect(problem(s, { ...ok, extra: 1 })).toEqual({ message: 'Not accepted here: extra.' });
  });

  it("keeps a schema's own message: a phrase after the name, or a sentence of its own", () => {
    const s = z.strictObject({
      from: z.string().regex(/^\d+$/, 'must be digits'),
      message: z.string().refine((m) => m.trim() !== '', 'The message is empty.'),
      end: z.string().refine((e) => e !== '', 'quiet hours need an end time'),
    });
    expect(problem(s, { from: 'x', message: 'm', end: 'e' })).toEqual({
      field: 'from',
      message: 'From number must be digits.',
    });
    expect(problem(s, { from: '1', message: ' ', end: 'e' }).message).toBe('The message is empty.');
    expect(problem(s, { from: '1', message: 'm', end: '' })).toEqual({
      field: 'end',
      message: 'Quiet hours need an end time.',
    });
  });

  it('names a field in a list by its key and keeps the full path for the form', () => {
    const s = z.strictObject({ agents: z.array(z.strictObject({ agentId: z.string().min(1) })) });
    expect(problem(s, { agents: [{ agentId: 'a' }, { agentId: '' }] })).toEqual({
      field: 'agents.1.agentId',
      message: 'Agent ID must not be empty.',
    });
  });

  it('lists where in a file each rule was broken, a few at most, never a value', () => {
    const s = z.object({
      schemaVersion: z.literal(1),
      settings: z.object({ pollIntervalSec: z.number().int().min(5) }),
      teams: z.array(z.object({ baseUrl: z.string().url('must be an http(s) URL.') })),
    });
    const where = (input: unknown, max?: number) => {
      const r = s.safeParse(input, { error: ruleWords });
      if (r.success) throw new Error('accepted');
      return issuesAt(r.error, max);
    };
    const secret = 'sk_live_0123456789abcdef';
    expect(where({ schemaVersion: 1, settings: { pollIntervalSec: 1 }, teams: [{ baseUrl: secret }] })).toBe(
      'settings.pollIntervalSec: must be at least 5; teams.0.baseUrl: must be an http(s) URL',
    );
    expect(where([])).toBe('top level: must be a set of fields');
    expect(where({ schemaVersion: 2, settings: { pollIntervalSec: 'x' }, teams: [{ baseUrl: secret }, {}] }, 2)).toBe(
      'schemaVersion: must be 1; settings.pollIntervalSec: must be a number (and 2 more)',
    );
    expect(where({ schemaVersion: 1, settings: { pollIntervalSec: 1 }, teams: [{ baseUrl: secret }] })).not.toContain(
      secret,
    );
  });
});
