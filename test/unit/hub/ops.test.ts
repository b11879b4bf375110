// A hub replica's structured log lines (one JSON object per line, never a secret) and the command line's
// incident line naming the member who acknowledged it.
import { describe, expect, it } from 'vitest';
import { jsonLogger } from '../../../src-main/app/hub/ops';
import { incidentLine } from '../../../src-shared/words';

describe('jsonLogger', () => {
  it('writes one JSON object per line: time, level, msg, replica and the fields', () => {
    const lines: string[] = [];
    const log = jsonLogger(
      (l) => lines.push(l),
      'host-1-abc',
      () => Date.UTC(2026, 0, 2, 3, 4, 5),
    );
    log.info('leases: agents held', { held: 3, gained: 1 });
    log.warn('hub: draining');
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        held: 3,
        gained: 1,
        time: '2026-01-02T03:04:05.000Z',
        level: 'info',
        msg: 'leases: agents held',
        replica: 'host-1-abc',
      },
      { time: '2026-01-02T03:04:05.000Z', level: 'warn', msg: 'hub: draining', replica: 'host-1-abc' },
    ]);
  });

  it('never logs a secret: secret-named fields hidden, URL passwords and tokens redacted, in fields and messages', () => {
    const lines: string[] = [];
    const log = jsonLogger((l) => lines.push(l), 'r');
    log.error('connect to postgres://hub:hunter2@db.internal:5432/hub failed', {
      token: 'cch_0123456789abcdef0123456789abcdef0123456',
      apiKey: 'sk_live_0123456789',
      nested: { password: 'pw-1', url: 'https://user:pw-2@hooks.example/in/0123456789abcdef0123?sig=s3cr3t' },
      level: 'not-a-level',
      msg: 'not the message',
    });
    const text = lines.join('');
    for (const secret of [
      'hunter2',
      'cch_0123456789abcdef',
      'sk_live_',
      'pw-1',
      'pw-2',
      '0123456789abcdef0123',
      's3cr3t',
    ])
      expect(text).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'error', replica: 'r', token: '[redacted]', apiKey: '[redacted]' });
    expect(line.msg).toBe('connect to postgres://***@db.internal:5432/hub failed');
    expect(line.nested).toEqual({ password: '[redacted]', url: 'https://***@hooks.example/in/…?sig=…' });
  });
});

describe('incidentLine', () => {
  it('names the member who acknowledged a hub incident', () => {
    const incident = {
      severity: 'urgent' as const,
      title: 'a1 needs a QR scan',
      openedAt: 0,
      resolvedAt: null,
      durationMs: null,
      acknowledgedBy: 'bob',
    };
    expect(incidentLine(incident, { team: 'Support', agent: 'a1' }, 120_000)).toBe(
      'Urgent Support/a1: a1 needs a QR scan (open for 2 min, acknowledged by bob)',
    );
  });
});
