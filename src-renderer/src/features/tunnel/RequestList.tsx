// The left pane: every request the receiver saw, newest first (deliveries and refused requests),
// with what to show, an agent filter and a text search (searched here at once, and in the stored
// log by the main process for older entries and bodies). A row is a button: click or Enter
// selects it; the arrow keys, Home and End move through the list.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useApp } from '../../store/react';
import { nameWords, useNames } from './names';
import {
  matches,
  mergeRows,
  NO_FILTER,
  rowsOf,
  SHOW_WORDS,
  type RequestFilter,
  type RequestRow,
  type Show,
} from './requests';
import { forwardWords, RefusedBadge, typeWords, VerdictBadge } from './verdict';

const SEARCH_DELAY_MS = 300;

const count = (n: number) => `${n} ${n === 1 ? 'request' : 'requests'}`;

/** The selected row (kept whole: a refused request found by the log search is in no store list). */
export type Selection = RequestRow;

function Row({
  row,
  selected,
  onSelect,
  showTeam,
}: {
  row: RequestRow;
  selected: boolean;
  onSelect(): void;
  showTeam: boolean;
}) {
  const names = useNames();
  const lastForward = useApp((s) => (row.kind === 'delivery' ? s.lastForward[row.id] : undefined));
  const time = new Date(row.at).toLocaleTimeString();
  if (row.kind === 'refused') {
    const r = row.r;
    return (
      <button type="button" className="req" aria-current={selected ? 'true' : undefined} onClick={onSelect}>
        <span className="req-top">
          <RefusedBadge reason={r.reason} />
          <span className="req-what">
            {r.method} {r.path}
          </span>
          <time className="req-time">{time}</time>
        </span>
        <span className="req-sub">
          <span className="req-who">
            {r.agentId ? `${names(null, r.agentId).agent} · ` : ''}from {r.from}
          </span>
          <span className="req-fwd">answered {r.status}</span>
        </span>
      </button>
    );
  }
  const d = row.d;
  const n = names(d.teamId, d.agentId);
  const fwd = forwardWords(d, lastForward);
  return (
    <button type="button" className="req" aria-current={selected ? 'true' : undefined} onClick={onSelect}>
      <span className="req-top">
        <VerdictBadge d={d} />
        <span className="req-what">{typeWords(d)}</span>
        <time className="req-time">{time}</time>
      </span>
      {d.preview && <span className="req-preview">{d.preview}</span>}
      <span className="req-sub">
        <span className="req-who">
          {showTeam ? nameWords(n) : n.agent} · {d.from ? `+${d.from.replace(/^\+/, '')}` : 'no sender'}
        </span>
        <span className={`req-fwd${fwd.failed ? ' error' : ''}`}>{fwd.words}</span>
      </span>
    </button>
  );
}

export function RequestList({ selected, onSelect }: { selected: Selection | null; onSelect(s: Selection): void }) {
  const deliveries = useApp((s) => s.deliveries);
  const refused = useApp((s) => s.refused);
  const loaded = useApp((s) => s.deliveriesLoaded);
  const search = useApp((s) => s.searchTunnel);
  const names = useNames();
  const showTeam = useApp((s) => s.teams.length > 1);
  const uid = useId();
  const [f, setF] = useState<RequestFilter>(NO_FILTER);
  const [found, setFound] = useState<{ text: string; rows: RequestRow[] } | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const set = (patch: Partial<RequestFilter>) => setF((x) => ({ ...x, ...patch }));

  // The stored log is searched too (older entries, bodies), a moment after typing stops.
  const text = f.text.trim();
  useEffect(() => {
    if (!text) return setFound(null);
    let live = true;
    const t = setTimeout(() => {
      void search(text).then((r) => {
        if (live && r.ok) setFound({ text, rows: rowsOf(r.value.deliveries, r.value.refused) });
      });
    }, SEARCH_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, search]);

  const all = useMemo(() => rowsOf(deliveries, refused), [deliveries, refused]);
  const agentName = (id: string) => names(null, id).agent;
  const local = all.filter((r) => matches(r, f, agentName));
  // Rows the log search found match the text by their bodies; the other filters still apply.
  const fromLog =
    found && found.text === text ? found.rows.filter((r) => matches(r, { ...f, text: '' }, agentName)) : [];
  const rows = mergeRows(local, fromLog);
  const agentIds = useMemo(
    () =>
      [
        ...new Set(
          all.map((r) => (r.kind === 'delivery' ? r.d.agentId : r.r.agentId)).filter((a): a is string => Boolean(a)),
        ),
      ].sort(),
    [all],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const buttons = [...(listRef.current?.querySelectorAll<HTMLButtonElement>('button.req') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const to =
      e.key === 'ArrowDown'
        ? at + 1
        : e.key === 'ArrowUp'
          ? at - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? buttons.length - 1
              : null;
    if (to === null || buttons.length === 0) return;
    e.preventDefault();
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, to))]!;
    next.focus();
    next.click();
  };

  return (
    <section className="req-list" aria-labelledby={`${uid}-title`}>
      <h3 id={`${uid}-title`} className="sr-only">
        Requests
      </h3>
      <div className="req-filters" role="search">
        <label className="sr-only" htmlFor={`${uid}-q`}>
          Search requests
        </label>
        <input
          id={`${uid}-q`}
          type="search"
          value={f.text}
          onChange={(e) => set({ text: e.target.value })}
          placeholder="Search text, number, agent…"
        />
        <label className="sr-only" htmlFor={`${uid}-show`}>
          Show requests
        </label>
        <select id={`${uid}-show`} value={f.show} onChange={(e) => set({ show: e.target.value as Show })}>
          {(Object.keys(SHOW_WORDS) as Show[]).map((k) => (
            <option key={k} value={k}>
              {SHOW_WORDS[k]}
            </option>
          ))}
        </select>
        <label className="sr-only" htmlFor={`${uid}-agent`}>
          Filter by agent
        </label>
        <select id={`${uid}-agent`} value={f.agentId} onChange={(e) => set({ agentId: e.target.value })}>
          <option value="">All agents</option>
          {agentIds.map((a) => (
            <option key={a} value={a}>
              {agentName(a)}
            </option>
          ))}
        </select>
      </div>
      <p className="muted req-count" aria-live="polite">
        {!loaded
          ? 'Loading…'
          : !text && f.show === 'all' && !f.agentId
            ? count(all.length)
            : `${rows.length} of ${count(all.length)} shown`}
      </p>
      {loaded && rows.length === 0 ? (
        <p className="empty">
          {all.length === 0
            ? 'No requests yet. Deliveries appear here as they arrive; simulate one to try.'
            : 'Nothing matches.'}
        </p>
      ) : (
        <ul className="reqs" ref={listRef} onKeyDown={onKeyDown} aria-label="Requests, newest first">
          {rows.map((row) => (
            <li key={`${row.kind}:${row.id}`}>
              <Row
                row={row}
                showTeam={showTeam}
                selected={selected?.kind === row.kind && selected.id === row.id}
                onSelect={() => onSelect(row)}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
