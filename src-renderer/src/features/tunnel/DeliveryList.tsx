// The live list of deliveries with filters (agent, verdict, from, type). New deliveries arrive as
// tunnel.delivery events and appear at the top.
import { useId, useMemo, useState } from 'react';
import type { DeliverySummaryDTO, VerificationResult } from '../../../../src-shared/contract';
import { VERDICTS, VERDICT_WORDS, forwardWords, verdictTone } from './verdict';
import { useApp } from '../../store/react';

export interface DeliveryFilters {
  agentId: string;
  verdict: VerificationResult | '';
  from: string;
  type: string;
}

export const NO_FILTERS: DeliveryFilters = { agentId: '', verdict: '', from: '', type: '' };

export function applyFilters(list: DeliverySummaryDTO[], f: DeliveryFilters): DeliverySummaryDTO[] {
  const from = f.from.trim().replace(/[\s()+-]/g, '').toLowerCase();
  return list.filter(
    (d) =>
      (!f.agentId || d.agentId === f.agentId) &&
      (!f.verdict || d.verification === f.verdict) &&
      (!f.type || (d.messageType ?? d.event) === f.type) &&
      (!from || (d.from ?? '').toLowerCase().replace(/[\s()+-]/g, '').includes(from)),
  );
}

export function VerdictBadge({ d }: { d: Pick<DeliverySummaryDTO, 'verification' | 'duplicate'> }) {
  return (
    <>
      <span className={`badge tone-${verdictTone(d.verification)}`}>{VERDICT_WORDS[d.verification]}</span>
      {d.duplicate && <span className="badge tone-warn">Duplicate</span>}
    </>
  );
}

export function DeliveryList({ selected, onSelect }: { selected: string | null; onSelect(id: string): void }) {
  const all = useApp((s) => s.deliveries);
  const loaded = useApp((s) => s.deliveriesLoaded);
  const lastForward = useApp((s) => s.lastForward);
  const [f, setF] = useState<DeliveryFilters>(NO_FILTERS);
  const uid = useId();
  const agents = useMemo(() => [...new Set(all.map((d) => d.agentId).filter((a): a is string => Boolean(a)))].sort(), [all]);
  const types = useMemo(() => [...new Set(all.map((d) => d.messageType ?? d.event))].sort(), [all]);
  const rows = applyFilters(all, f);
  const set = (patch: Partial<DeliveryFilters>) => setF((x) => ({ ...x, ...patch }));
  return (
    <section aria-labelledby={`${uid}-title`} className="deliveries">
      <h3 id={`${uid}-title`}>Deliveries</h3>
      <div className="tunnel-filters" role="group" aria-label="Filter deliveries">
        <label>
          Agent{' '}
          <select value={f.agentId} onChange={(e) => set({ agentId: e.target.value })}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Verdict{' '}
          <select value={f.verdict} onChange={(e) => set({ verdict: e.target.value as DeliveryFilters['verdict'] })}>
            <option value="">All verdicts</option>
            {VERDICTS.map((v) => (
              <option key={v} value={v}>
                {VERDICT_WORDS[v]}
              </option>
            ))}
          </select>
        </label>
        <label>
          From <input value={f.from} onChange={(e) => set({ from: e.target.value })} placeholder="number" />
        </label>
        <label>
          Type{' '}
          <select value={f.type} onChange={(e) => set({ type: e.target.value })}>
            <option value="">All types</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {(f.agentId || f.verdict || f.from || f.type) && (
          <button type="button" className="secondary small" onClick={() => setF(NO_FILTERS)}>
            Clear filters
          </button>
        )}
      </div>
      <p className="muted" aria-live="polite">
        {!loaded ? 'Loading…' : `${rows.length} of ${all.length} deliveries shown`}
      </p>
      <table className="delivery-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Verdict</th>
            <th scope="col">From</th>
            <th scope="col">Type</th>
            <th scope="col">Preview</th>
            <th scope="col">Forward</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id} className={selected === d.id ? 'selected' : undefined}>
              <td>
                <button type="button" className="linklike" onClick={() => onSelect(d.id)} aria-current={selected === d.id ? 'true' : undefined} aria-label={`Details of delivery ${d.id} at ${new Date(d.receivedAt).toLocaleTimeString()}`}>
                  {new Date(d.receivedAt).toLocaleTimeString()}
                </button>
              </td>
              <td>{d.agentId ?? '—'}</td>
              <td>
                <VerdictBadge d={d} />
              </td>
              <td>{d.from ?? '—'}</td>
              <td>{d.messageType ?? d.event}</td>
              <td className="preview">{d.preview}</td>
              <td>{forwardWords(d, lastForward[d.id])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
