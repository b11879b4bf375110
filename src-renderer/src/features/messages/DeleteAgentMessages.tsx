// "Delete all messages of this agent" (the inbox of one agent), after a confirmation that says what
// goes where: the sends leave the send log at once, what contacts wrote is hidden from now on.
import { useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { messagesHref } from '../../router/routes';
import { useApp } from '../../store/react';

export function DeleteAgentMessages({ teamId, agentId, label }: { teamId: string; agentId: string; label: string }) {
  const deleteAgentMessages = useApp((s) => s.deleteAgentMessages);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const del = async () => {
    setBusy(true);
    const err = await deleteAgentMessages(teamId, agentId);
    setBusy(false);
    setError(err);
    if (!err) {
      setAsking(false);
      window.location.hash = messagesHref(teamId, agentId);
    }
  };
  return (
    <div className="messages-delete-agent">
      {asking ? (
        <div className="messages-confirm" role="group" aria-labelledby="messages-delete-agent-q">
          <p id="messages-delete-agent-q">
            Delete every conversation of {label} from this computer? What was sent is removed from the send log at once;
            what contacts wrote is hidden now and leaves the webhook log when that log drops it. The contacts still have
            the messages on their phones.
          </p>
          <button type="button" className="danger small" onClick={() => void del()} disabled={busy}>
            Delete all messages
          </button>
          <button type="button" className="secondary small" onClick={() => setAsking(false)}>
            Keep them
          </button>
        </div>
      ) : (
        <button type="button" className="secondary small danger" onClick={() => setAsking(true)}>
          Delete all messages of this agent
        </button>
      )}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}
