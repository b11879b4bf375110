// A button that runs async work, shows progress while it runs and cannot be pressed twice.
import { useState, type ReactNode } from 'react';

export function AsyncButton({
  onRun,
  children,
  busyText,
  className,
  disabled,
  ariaLabel,
}: {
  onRun: () => Promise<unknown>;
  children: ReactNode;
  busyText?: string;
  className?: string;
  disabled?: boolean;
  /** A fuller name for screen readers; it starts with the visible text. */
  ariaLabel?: string;
}) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await onRun();
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className={className}
      disabled={disabled || busy}
      aria-busy={busy}
      aria-label={ariaLabel}
      onClick={() => void run()}
    >
      {busy ? (busyText ?? 'Working…') : children}
    </button>
  );
}
