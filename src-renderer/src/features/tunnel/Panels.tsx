// The inspector's settings, one compact panel at a time under a row of toggles: the public URL
// (exposure), forwarding to the local app, simulating a message, registering a URL by hand.
// Escape (or Close) closes the open panel and returns focus to its toggle.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useConnectedHub } from '../../components/allowed';
import { ExposePanel } from './ExposePanel';
import { ForwardForm } from './ForwardForm';
import { LegacySignatureSetting } from './LegacySignatureSetting';
import { RegisterForm } from './RegisterForm';
import { SimulateForm } from './SimulateForm';

export type PanelName = 'expose' | 'forward' | 'simulate' | 'register';

const TOGGLES: { name: PanelName; label: string }[] = [
  { name: 'expose', label: 'Public URL' },
  { name: 'forward', label: 'Forwarding' },
  { name: 'simulate', label: 'Simulate a message' },
  { name: 'register', label: 'Register a URL' },
];

export function Panels({ agents }: { agents: { teamId: string; agentId: string }[] }) {
  const [open, setOpen] = useState<PanelName | null>(null);
  const uid = useId();
  const toggles = useRef<Partial<Record<PanelName, HTMLButtonElement | null>>>({});
  const panel = useRef<HTMLDivElement>(null);
  const close = () => {
    const was = open;
    setOpen(null);
    if (was) toggles.current[was]?.focus();
  };
  // Escape closes the open panel when focus is in it (or was lost from it, e.g. a button that got disabled).
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      const at = document.activeElement;
      if (e.key === 'Escape' && (at === document.body || at === null || panel.current?.contains(at))) close();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
  const hub = useConnectedHub();
  const body: Record<PanelName, ReactNode> = {
    expose: (
      <>
        <h3>Public URL</h3>
        {hub !== null ? (
          // The hub's receiver is reached at the public URL its admin starts it with; there is nothing to expose here.
          <p>
            {hub.publicUrl !== null
              ? `The team hub receives the deliveries at ${hub.publicUrl}; its admin sets that address (hub --public-url).`
              : 'The team hub was started without a public URL, so the service cannot reach it: ask its admin to start it with --public-url.'}
          </p>
        ) : (
          <ExposePanel />
        )}
      </>
    ),
    forward: (
      <>
        <ForwardForm />
        <LegacySignatureSetting />
      </>
    ),
    simulate: <SimulateForm agents={agents} />,
    register: <RegisterForm agents={agents} />,
  };
  return (
    <div className="tunnel-panels">
      <div className="panel-toggles" role="group" aria-label="Tunnel settings">
        {TOGGLES.map((t) => (
          <button
            key={t.name}
            ref={(el) => void (toggles.current[t.name] = el)}
            type="button"
            className="secondary small"
            aria-expanded={open === t.name}
            aria-controls={`${uid}-panel`}
            onClick={() => setOpen((o) => (o === t.name ? null : t.name))}
          >
            {t.label}
          </button>
        ))}
      </div>
      {open && (
        <div id={`${uid}-panel`} className="card panel" ref={panel}>
          {body[open]}
          <button type="button" className="secondary small panel-close" onClick={close}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}
