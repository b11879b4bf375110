// A message's picture or document in its bubble. A picture is asked of the main side (messages.media:
// fetched with the team's key, which never reaches this window, and cached in the data folder) once
// the bubble is on screen, drawn as a thumbnail of a fixed size, and opened larger on click. A
// document is a row with its name, its size when known, and Save (the desktop's save dialog; a
// download in the browser). A file the service no longer has says so in one sentence. A file sent
// from this install by its link is named, with the link.
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { ErrorDTO, MessageDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { downloadBase64 } from '../../components/download';
import { errorLine } from '../../components/errors';
import { mediaKey } from '../../store/message-media';
import { useApp } from '../../store/react';

const EXPIRED = 'MEDIA_EXPIRED';

/** 1234 → "1.2 KB" (decimal units, as file managers show). */
function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Whether the element has come on screen (at once where IntersectionObserver is missing). */
function useSeen(ref: React.RefObject<Element | null>): boolean {
  const [seen, setSeen] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    if (seen || !ref.current) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          io.disconnect();
        }
      },
      { rootMargin: '200px' },
    );
    io.observe(ref.current);
    return () => io.disconnect();
  }, [seen, ref]);
  return seen;
}

function Gone({ error }: { error: ErrorDTO }) {
  return <p className="messages-media-gone">{error.message}</p>;
}

/**
 * The picture, larger, over the screen (in a portal: a thread's rows may be moved by transforms);
 * focus stays on Close; Escape, Close or a click beside the picture closes it and gives focus back.
 */
function Larger({ src, alt, onClose }: { src: string; alt: string; onClose(): void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    close.current?.focus();
    return () => back?.focus();
  }, []);
  return createPortal(
    <div
      className="messages-media-larger"
      role="dialog"
      aria-modal="true"
      aria-label="The picture, larger"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
        if (e.key === 'Tab') e.preventDefault();
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <img src={src} alt={alt} />
      <button type="button" ref={close} onClick={onClose}>
        Close
      </button>
    </div>,
    document.body,
  );
}

function Picture({ m, teamId }: { m: MessageDTO; teamId: string }) {
  const key = mediaKey(teamId, m.agentId, m.key);
  const entry = useApp((s) => s.messageMedia[key]);
  const load = useApp((s) => s.loadMessageMedia);
  const box = useRef<HTMLDivElement>(null);
  const seen = useSeen(box);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (seen && entry === undefined) void load(teamId, m.agentId, m.key);
  }, [seen, entry, load, teamId, m.agentId, m.key]);
  const alt = m.text ? `Picture: ${m.text}` : m.media?.filename ? `Picture ${m.media.filename}` : 'Picture';
  let body: React.ReactNode;
  if (entry?.state === 'failed') {
    body =
      entry.error.code === EXPIRED ? (
        <Gone error={entry.error} />
      ) : (
        <p className="messages-media-failed">
          The picture could not be shown: {errorLine(entry.error)}{' '}
          <button type="button" className="secondary" onClick={() => void load(teamId, m.agentId, m.key)}>
            Try again
          </button>
        </p>
      );
  } else if (entry?.state === 'ready' && entry.media.dataUrl) {
    const src = entry.media.dataUrl;
    body = (
      <>
        <button
          type="button"
          className="messages-thumb"
          onClick={() => setOpen(true)}
          aria-label={`Open larger: ${alt}`}
        >
          <img src={src} alt={alt} />
        </button>
        {open && <Larger src={src} alt={alt} onClose={() => setOpen(false)} />}
      </>
    );
  } else if (entry?.state === 'ready') {
    body = <Document m={m} teamId={teamId} />;
  } else {
    body = (
      <div className="messages-thumb placeholder" aria-busy="true">
        <span className="muted">Loading the picture…</span>
      </div>
    );
  }
  return (
    <div ref={box} className="messages-media">
      {body}
    </div>
  );
}

function Document({ m, teamId }: { m: MessageDTO; teamId: string }) {
  const save = useApp((s) => s.saveMessageMedia);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const name = m.media?.filename ?? (m.type === 'image' ? 'Picture' : 'Document');
  const size = m.media?.size;
  const gate = useGate('messages.saveMedia');
  const doSave = async () => {
    setBusy(true);
    const r = await save(teamId, m.agentId, m.key);
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setError(null);
    if (r.value.saved === 'download') {
      downloadBase64(r.value.file.filename, r.value.file.dataBase64, r.value.file.mimeType);
      setNote(`Downloaded ${r.value.file.filename}.`);
    } else if (r.value.saved === 'file') setNote(`Saved as ${r.value.filename}.`);
  };
  return (
    <div className="messages-doc">
      <span className="messages-doc-name">{name}</span>
      {size !== undefined && <span className="muted"> · {sizeWords(size)}</span>}
      {error?.code !== EXPIRED && (
        <button
          type="button"
          className="secondary"
          disabled={busy || !gate.allowed}
          aria-label={`Save ${name}`}
          onClick={() => void doSave()}
          {...gate.props}
        >
          Save
        </button>
      )}
      {error?.code !== EXPIRED && gate.hiddenNote}
      {note && <span role="status">{note}</span>}
      {error &&
        (error.code === EXPIRED ? (
          <Gone error={error} />
        ) : (
          <p className="messages-media-failed" role="alert">
            Not saved: {errorLine(error)}
          </p>
        ))}
    </div>
  );
}

export function MessageMedia({ m }: { m: MessageDTO }) {
  // Sent from this install by its link: the service keeps no copy to fetch.
  if (m.via !== undefined) {
    const what = m.media?.filename ?? (m.type === 'image' ? 'Picture' : m.type === 'document' ? 'Document' : m.type);
    return (
      <p className="messages-media">
        {what}
        {m.media?.url && <span className="muted messages-media-url"> · sent by link: {m.media.url}</span>}
      </p>
    );
  }
  if (m.teamId === null || (m.type !== 'image' && m.type !== 'document'))
    return <p className="messages-media">{m.media?.filename ?? m.type}</p>;
  return m.type === 'image' ? <Picture m={m} teamId={m.teamId} /> : <Document m={m} teamId={m.teamId} />;
}
