// "Delete all messages of this agent" (the inbox of one agent): tucked in the agent's "More" menu
// beside New conversation, never a button of its own under the list; after a confirmation that says
// it is removed for good from this computer (the messages, their files, the webhook log's copies).
import { useRef, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ConfirmStep } from '../../components/ConfirmStep';
import { ErrorNotice } from '../../components/ErrorNotice';
import { messagesHref } from '../../router/routes';
import { useApp } from '../../store/react';

export function DeleteAgentMessages({ teamId, agentId, label }: { teamId: string; agentId: string; label: string }) {
  const deleteAgentMessages = useApp((s) => s.deleteAgentMessages);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);
  const gate = useGate('messages.deleteAgent');
  const onHub = useConnectedHub() !== null;
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
    <div className={asking ? 'messages-delete-agent asking' : 'messages-delete-agent'}>
      {asking ? (
        <ConfirmStep
          id="messages-delete-agent-q"
          className="messages-confirm"
          question={
            <>
              Delete every conversation of {label}? They are removed for good from{' '}
              {onHub ? 'the team hub' : 'this computer'}: the messages, their files and the webhook log&apos;s copies.
              The contacts still have the messages on their phones.
            </>
          }
          confirm="Delete all messages"
          cancel="Keep them"
          busy={busy}
          onConfirm={() => void del()}
          onCancel={() => setAsking(false)}
        />
      ) : (
        <details className="messages-more" ref={menu}>
          <summary aria-label={`More for ${label}`}>More</summary>
          <div className="messages-more-menu">
            <button
              type="button"
              className="secondary small"
              onClick={() => {
                if (menu.current) menu.current.open = false;
                setAsking(true);
              }}
              disabled={!gate.allowed}
              {...gate.props}
            >
              Delete all messages of this agent
            </button>
            {gate.note}
          </div>
        </details>
      )}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}
