// The question before a send that is likely to fail (the console's, the Messages composer's): why
// (an agent that needs a QR scan, a number not on WhatsApp), then "Send anyway" or "Don't send".
import type { ReactNode } from 'react';
import { agentHref } from '../../router/routes';

/** Why a send from an agent that needs a scan will be refused, with the way to pair it. */
export function NeedsScanReason({ teamId, agentId, who }: { teamId: string; agentId: string; who: string }) {
  return (
    <p>
      <strong>{who} needs a QR scan.</strong> The service will refuse this send until the phone scans the code.{' '}
      <a href={agentHref(teamId, agentId, 'pairing')}>Pair {who}</a>
    </p>
  );
}

export function SendAnyway({
  children,
  onSend,
  onCancel,
}: {
  /** The reasons, one paragraph each. */
  children: ReactNode;
  onSend(): void;
  onCancel(): void;
}) {
  return (
    <div className="send-confirm" role="alert">
      {children}
      <p>Send it anyway?</p>
      <div className="actions">
        <button type="button" className="danger" onClick={onSend}>
          Send anyway
        </button>
        <button type="button" className="secondary" onClick={onCancel} autoFocus>
          Don&apos;t send
        </button>
      </div>
    </div>
  );
}
