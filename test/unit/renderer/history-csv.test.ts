import { describe, expect, it } from 'vitest';
import { historyCsv } from '../../../src-renderer/src/features/alerts/history-csv';
import { incident } from './fixtures';

describe('history CSV', () => {
  /** The CSV's one row for an incident titled `title` lasting durationMs: its duration and title cells as written. */
  const cells = (title: string, durationMs: number | null = 1000) => {
    const csv = historyCsv([incident('i1', { title, durationMs, openedAt: 0, endedAt: 0, resolvedAt: 0 })], {
      teamLabel: () => 'T',
      agentLabel: () => 'A',
    });
    const prefix = 'T,a1,A,needs-scan,1970-01-01T00:00:00.000Z,1970-01-01T00:00:00.000Z,';
    const row = csv.slice(csv.indexOf('\r\n') + 2, -2);
    expect(row.startsWith(prefix)).toBe(true);
    return row.slice(prefix.length);
  };

  it('quotes fields with commas, quotes or line breaks and doubles their quotes', () => {
    expect(cells('plain')).toBe('1,plain');
    expect(cells('a, b')).toBe('1,"a, b"');
    expect(cells('say "hi"')).toBe('1,"say ""hi"""');
    expect(cells('two\nlines')).toBe('1,"two\nlines"');
    expect(cells('cr\rend')).toBe('1,"cr\rend"');
    expect(cells('x', 42_000)).toBe('42,x');
  });

  it('keeps a text field from running as a spreadsheet formula', () => {
    expect(cells('=HYPERLINK("x")')).toBe(`1,"'=HYPERLINK(""x"")"`);
    expect(cells('+1')).toBe("1,'+1");
    expect(cells('-2')).toBe("1,'-2");
    expect(cells('@sum')).toBe("1,'@sum");
    expect(cells('\tTab')).toBe("1,'\tTab");
    // A number is a number: not prefixed, even when negative.
    expect(cells('x', -2000)).toBe('-2,x');
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
