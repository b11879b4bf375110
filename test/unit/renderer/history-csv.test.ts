import { describe, expect, it } from 'vitest';
import { csvField, historyCsv } from '../../../src-renderer/src/features/alerts/history-csv';
import { incident } from './fixtures';

describe('history CSV', () => {
  it('quotes fields with commas, quotes or line breaks and doubles their quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rend')).toBe('"cr\rend"');
    expect(csvField(42)).toBe('42');
  });

  it('keeps a text field from running as a spreadsheet formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@sum')).toBe("'@sum");
    expect(csvField(-2)).toBe('-2');
  });

  it("writes the header and one row per incident: labels, ISO start and end, the incident's one length in seconds, title", () => {
    const opened = Date.UTC(2025, 2, 1, 8, 0, 0);
    const rows = [
      incident('i1', {
        teamId: 't1',
        agentId: 'a1',
        kind: 'reconnecting',
        title: 'Reconnecting, "again"',
        openedAt: opened,
        // Seen back after 95.4 s; closed once it had stayed connected 30 s more: the length is 95 s.
        endedAt: opened + 95_400,
        resolvedAt: opened + 125_400,
        durationMs: 95_400,
      }),
      incident('i2', {
        teamId: 't2',
        agentId: 'b,2',
        kind: 'needs-scan',
        title: 'Needs a QR scan',
        openedAt: opened,
        endedAt: opened + 3_600_000,
        resolvedAt: opened + 3_600_000,
        durationMs: 3_600_000,
      }),
    ];
    const csv = historyCsv(rows, {
      teamLabel: (t) => (t === 't1' ? 'Ops, EU' : 'Sales'),
      agentLabel: (_t, a) => `Agent ${a}`,
    });
    expect(csv.split('\r\n')).toEqual([
      'team label,agent id,agent label,kind,opened at,ended at,duration seconds,title',
      '"Ops, EU",a1,Agent a1,reconnecting,2025-03-01T08:00:00.000Z,2025-03-01T08:01:35.400Z,95,"Reconnecting, ""again"""',
      'Sales,"b,2","Agent b,2",needs-scan,2025-03-01T08:00:00.000Z,2025-03-01T09:00:00.000Z,3600,Needs a QR scan',
      '',
    ]);
  });
});
