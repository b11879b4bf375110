// A button that runs async work, shows progress while it runs and cannot be pressed twice. Given the request it
// makes, it is disabled, saying why, when the member's role on a team's hub does not allow it.
import { useState, type ReactNode } from 'react';
import type { RequestName } from '../../../src-shared/contract';
import { useGate } from './allowed';

export function AsyncButton({
  onRun,
  children,
  busyText,
  className,
  disabled,
  ariaLabel,
  request,
}: {
  onRun: () => Promise<unknown>;
  children: ReactNode;
  busyText?: string;
  className?: string;
  disabled?: boolean;
  /** A fuller name for screen readers; it starts with the visible text. */
  ariaLabel?: string;
  /** The request it makes, for the member's role on a hub (useAllowed). */
  request?: RequestName;
}) {
  const [busy, setBusy] = useState(false);
  const gate = useGate(request ?? 'app.ping');
  const run = async () => {
    setBusy(true);
    try {
      await onRun();
    } finally {
      setBusy(false);
    }
  };
  const button = (
    <button
      type="button"
      className={className}
      disabled={disabled || busy || !gate.allowed}
      aria-busy={busy}
      aria-label={ariaLabel}
      {...gate.props}
      onClick={() => void run()}
    >
      {busy ? (busyText ?? 'Working…') : children}
    </button>
  );
  if (gate.allowed) return button;
  return (
    <>
      {button}
      {gate.hiddenNote}
    </>
  );
}
