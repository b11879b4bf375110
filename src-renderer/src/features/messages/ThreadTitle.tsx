// The open thread's title: the contact's local name (or number), with Name (kept in this install's
// data folder, the service gives none) and Delete (this install's copy of the conversation).
import { useState, type FormEvent } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ConfirmStep } from '../../components/ConfirmStep';
import { ErrorNotice } from '../../components/ErrorNotice';
import { NameForm } from '../../components/NameForm';
import { messagesHref } from '../../router/routes';
import { useApp } from '../../store/react';

const MAX_NAME = 200;

interface Props {
  teamId: string;
  agentId: string;
  contact: string;
  name: string | undefined;
}

export function ThreadTitle({ teamId, agentId, contact, name }: Props) {
  const nameContact = useApp((s) => s.nameContact);
  const deleteThread = useApp((s) => s.deleteThread);
  const [mode, setMode] = useState<'show' | 'name' | 'delete'>('show');
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const err = await nameContact(contact, draft);
    setBusy(false);
    setError(err);
    if (!err) setMode('show');
  };
  const del = async () => {
    setBusy(true);
    const err = await deleteThread(teamId, agentId, contact);
    setBusy(false);
    setError(err);
    if (!err) window.location.hash = messagesHref(teamId, agentId);
  };
  return (
    <div className="messages-thread-head">
      {mode === 'name' ? (
        <NameForm
          id="messages-name-input"
          className="messages-name"
          label={`Name for ${contact}`}
          value={draft}
          maxLength={MAX_NAME}
          hint="Kept on this computer only. Empty removes the name."
          busy={busy}
          onChange={setDraft}
          onSubmit={(e) => void save(e)}
          onCancel={() => setMode('show')}
        />
      ) : (
        <div className="messages-thread-title">
          <h3 tabIndex={-1}>{name ? `${name} (${contact})` : contact}</h3>
          <button
            type="button"
            className="secondary small"
            onClick={() => {
              setDraft(name ?? '');
              setMode('name');
            }}
          >
            Name
          </button>
          <button type="button" className="secondary small danger" onClick={() => setMode('delete')} disabled={busy}>
            Delete
          </button>
        </div>
      )}
      {mode === 'delete' && (
        <ConfirmStep
          id="messages-delete-q"
          className="messages-confirm"
          question={
            <>
              Delete the conversation with {name ?? contact} from this computer? What was sent is removed from the send
              log at once; what they wrote is hidden now and leaves the webhook log when that log drops it. The contact
              still has the messages on their phone.
            </>
          }
          confirm="Delete conversation"
          cancel="Keep it"
          busy={busy}
          onConfirm={() => void del()}
          onCancel={() => setMode('show')}
        />
      )}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}
