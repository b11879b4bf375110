// Quiet hours: a daily window (local time) in which non-urgent alerts stay silent (QuietHoursForm),
// or new-message notifications (Settings, through QuietHoursEditor). A start equal to its end is
// refused (it would be no window at all).
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { ErrorDTO, QuietHoursDTO, RequestName } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import { isHHMM } from './quietHours';

const DEFAULT: QuietHoursDTO = { enabled: false, start: '22:00', end: '07:00' };

export function QuietHoursForm() {
  const saved = useApp((s) => s.alertStatus?.quietHours ?? null);
  const save = useApp((s) => s.setQuietHours);
  return (
    <section className="card" aria-labelledby="quiet-title">
      <h3 id="quiet-title">Quiet hours</h3>
      <QuietHoursEditor
        saved={saved}
        save={save}
        request="alerts.setQuietHours"
        switchLabel="Keep non-urgent alerts silent during quiet hours"
      />
    </section>
  );
}

/** The quiet hours form: on/off, from, until, Save; `save` answers the error or null. */
export function QuietHoursEditor({
  saved,
  save,
  switchLabel,
  request,
}: {
  saved: QuietHoursDTO | null;
  save: (q: QuietHoursDTO) => Promise<ErrorDTO | null>;
  switchLabel: string;
  /** The request `save` makes, for the member's role on a hub (useAllowed). */
  request: RequestName;
}) {
  const gate = useGate(request);
  const [draft, setDraft] = useState<QuietHoursDTO>(saved ?? DEFAULT);
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const ids = { on: useId(), start: useId(), end: useId(), err: useId() };
  useEffect(() => {
    if (saved && !dirty) setDraft(saved);
  }, [saved, dirty]);
  const edit = (p: Partial<QuietHoursDTO>) => {
    setDraft((d) => ({ ...d, ...p }));
    setDirty(true);
    setDone(false);
  };
  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    const bad = !isHHMM(draft.start) ? 'start' : !isHHMM(draft.end) ? 'end' : null;
    if (bad) {
      setError({
        kind: 'validation',
        code: 'INVALID_TIME',
        message: `The ${bad} time must look like 22:00.`,
        field: bad,
      });
      return;
    }
    if (draft.start === draft.end) {
      setError({
        kind: 'validation',
        code: 'EMPTY_WINDOW',
        message: `Quiet from ${draft.start} until ${draft.end} is no time at all: choose an end time different from the start.`,
        field: 'end',
      });
      return;
    }
    setBusy(true);
    const e = await save(draft);
    setBusy(false);
    setError(e);
    if (!e) {
      setDirty(false);
      setDone(true);
    }
  };
  const invalid = (f: string) => (error?.field === f ? { 'aria-invalid': true, 'aria-describedby': ids.err } : {});
  return (
    <form className="form" onSubmit={(e) => void onSubmit(e)} aria-busy={busy}>
      <div className="switch">
        <input
          id={ids.on}
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => edit({ enabled: e.target.checked })}
        />
        <label htmlFor={ids.on}>{switchLabel}</label>
      </div>
      <label htmlFor={ids.start}>Quiet from</label>
      <input
        id={ids.start}
        type="time"
        value={draft.start}
        onChange={(e) => edit({ start: e.target.value })}
        {...invalid('start')}
      />
      <label htmlFor={ids.end}>Quiet until</label>
      <input
        id={ids.end}
        type="time"
        value={draft.end}
        onChange={(e) => edit({ end: e.target.value })}
        {...invalid('end')}
      />
      {error && <ErrorNotice id={ids.err} error={error} />}
      <div className="actions">
        <button type="submit" disabled={busy || !gate.allowed} {...gate.props}>
          {busy ? 'Saving…' : 'Save quiet hours'}
        </button>
        {done && <span role="status">Saved.</span>}
      </div>
      {gate.note}
    </form>
  );
}
