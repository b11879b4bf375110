// The open thread's title: the contact's local name (or number), with Name (kept in this install's
// data folder, the service gives none), Export (the conversation as a file) and Delete (the
// conversation, or everything of the contact: its conversations with every agent and its name),
// each deletion asked first, removed for good from this computer.
import { useState, type FormEvent } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ConfirmStep } from '../../components/ConfirmStep';
import { ErrorNotice } from '../../components/ErrorNotice';
import { NameForm } from '../../components/NameForm';
import { messagesHref } from '../../router/routes';
import { useApp } from '../../store/react';
import { ExportConversation } from './ExportConversation';

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
  const deleteContactData = useApp((s) => s.deleteContactData);
  const [mode, setMode] = useState<'show' | 'name' | 'delete' | 'delete-contact'>('show');
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const nameGate = useGate('messages.setName');
  const deleteGate = useGate('messages.deleteConversation');
  const contactGate = useGate('messages.deleteContact');
  const onHub = useConnectedHub() !== null;
  /** Where the inbox is kept: the team hub's, shared by its members, or this computer's. */
  const place = onHub ? 'the team hub' : 'this computer';
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
  const delContact = async () => {
    setBusy(true);
    const err = await deleteContactData(contact);
    setBusy(false);
    setError(err);
    if (!err) window.location.hash = messagesHref(teamId, agentId);
  };
  const who = name ?? contact;
  return (
    <div className="messages-thread-head">
      {mode === 'name' ? (
        <NameForm
          id="messages-name-input"
          className="messages-name"
          label={`Name for ${contact}`}
          value={draft}
          maxLength={MAX_NAME}
          hint={
            onHub
              ? 'Kept by the team hub, for every member. Empty removes the name.'
              : 'Kept on this computer only. Empty removes the name.'
          }
          busy={busy}
          onChange={setDraft}
          onSubmit={(e) => void save(e)}
          onCancel={() => setMode('show')}
        />
      ) : (
        <div className="messages-thread-title">
          {/* Focused when a route opens this thread on the Messages screen (router/focus.ts). */}
          <h3 tabIndex={-1} data-route-heading="">
            {name ? `${name} (${contact})` : contact}
          </h3>
          {/* The tools wrap under the title together, never one by one. */}
          <div className="messages-thread-tools">
            <button
              type="button"
              className="secondary small"
              onClick={() => {
                setDraft(name ?? '');
                setMode('name');
              }}
              disabled={!nameGate.allowed}
              {...nameGate.props}
            >
              Name
            </button>
            {nameGate.hiddenNote}
            <ExportConversation teamId={teamId} agentId={agentId} contact={contact} />
            <button
              type="button"
              className="secondary small danger"
              onClick={() => setMode('delete')}
              disabled={busy || !deleteGate.allowed}
              {...deleteGate.props}
            >
              Delete
            </button>
            {deleteGate.hiddenNote}
          </div>
        </div>
      )}
      {mode === 'delete' && (
        <ConfirmStep
          id="messages-delete-q"
          className="messages-confirm"
          question={
            <>
              Delete the conversation with {who}? It is removed for good from {place}: its messages, their files and the
              webhook log&apos;s copies. {who} still has the messages on their phone.
            </>
          }
          confirm="Delete conversation"
          cancel="Keep it"
          busy={busy}
          onConfirm={() => void del()}
          onCancel={() => setMode('show')}
          more={
            <>
              <button
                type="button"
                className="secondary small"
                onClick={() => setMode('delete-contact')}
                disabled={busy || !contactGate.allowed}
                {...contactGate.props}
              >
                Everything of {who}…
              </button>
              {contactGate.hiddenNote}
            </>
          }
        />
      )}
      {mode === 'delete-contact' && (
        <ConfirmStep
          id="messages-delete-contact-q"
          className="messages-confirm"
          question={
            <>
              Delete everything of {who}: the conversations with every agent, and the name given here? It is all removed
              for good from {place}: the messages, their files and the webhook log&apos;s copies. {who} still has the
              messages on their phone.
            </>
          }
          confirm={`Delete everything of ${who}`}
          cancel="Keep it"
          busy={busy}
          onConfirm={() => void delContact()}
          onCancel={() => setMode('show')}
        />
      )}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}
