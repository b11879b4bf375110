// The confirm step of every registration from the tunnel screen: the service keeps one webhook URL
// per agent, so registering replaces the one it had (named when this install knows it) and the
// service issues a new signing secret. The words after the question come from the main process
// (app/usecases/registration-status.ts takeoverWarning), the same as the command line asks.
import { useEffect, useRef } from 'react';

export function ConfirmTakeover({
  who,
  url,
  takeover,
  busy,
  onConfirm,
  onCancel,
}: {
  who: string;
  url: string;
  takeover: string;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  // Focus starts on Cancel; once the step closes it goes back to what opened it.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    cancel.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <div className="confirm-takeover" role="group" aria-label={`Confirm the new webhook URL of ${who}`}>
      <p>
        Point the webhook of {who} at <code className="url">{url}</code>? {takeover}
      </p>
      <div className="actions">
        <button type="button" className="small" disabled={busy} onClick={onConfirm}>
          Replace the webhook
        </button>
        <button ref={cancel} type="button" className="secondary small" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
