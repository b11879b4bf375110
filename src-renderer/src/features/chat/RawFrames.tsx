// What the service sent, as it came: a turn's stream frames (event, id, data — not the decoded
// tokens), and for a reply the app could not read, the raw answer (status, content type, size,
// first bytes or frames).
import { useEffect } from 'react';
import type { ErrorDTO, RawFrameDTO, RawResponseDTO } from '../../../../src-shared/contract';
import { useApp } from '../../store/react';

/** How often the frames of a streaming turn are fetched again while they are shown. */
const LIVE_REFRESH_MS = 1000;

function FrameText({ f }: { f: RawFrameDTO }) {
  if (f.comment !== undefined) return <code>: {f.comment}</code>;
  if (f.retry !== undefined) return <code>retry: {f.retry}</code>;
  return (
    <>
      {f.event !== null && <code className="frame-field">event: {f.event}</code>}{' '}
      {f.id !== null && <code className="frame-field">id: {f.id}</code>} <code>data: {f.data}</code>
    </>
  );
}

function FrameList({ frames, label }: { frames: RawFrameDTO[]; label: string }) {
  return (
    <ol tabIndex={0} aria-label={label}>
      {frames.map((f, i) => (
        <li key={i}>
          {f.ms !== undefined && <span className="muted">+{f.ms} ms</span>} <FrameText f={f} />
        </li>
      ))}
    </ol>
  );
}

/** The turn's stream frames as received, fetched when shown and again while the turn streams. */
export function RawFrames({ turnId, live }: { turnId: string; live: boolean }) {
  const got = useApp((s) => s.chatRawFrames[turnId]);
  const load = useApp((s) => s.loadChatFrames);
  useEffect(() => {
    void load(turnId);
    if (!live) return;
    const h = setInterval(() => void load(turnId), LIVE_REFRESH_MS);
    return () => clearInterval(h);
  }, [turnId, live, load]);
  if (!got) return null;
  if (!got.known) {
    return (
      <p className="chat-frames muted" role="note">
        No raw frames: the app keeps them only for replies streamed since it started.
      </p>
    );
  }
  const count = got.frames.length + got.omitted;
  return (
    <details className="chat-frames" open>
      <summary>
        Raw stream: {count} frame{count === 1 ? '' : 's'} as received
        {got.omitted > 0 ? ` (${got.omitted} in the middle not kept)` : ''}
      </summary>
      <FrameList frames={got.frames} label="Stream frames as received" />
    </details>
  );
}

/** The answer behind "could not read the agent's reply": what came, as it came. */
export function RawAnswer({ raw }: { raw: RawResponseDTO }) {
  return (
    <details className="chat-raw" open>
      <summary>
        What the service sent: HTTP {raw.status}, {raw.contentType ?? 'no content type'}, {raw.bytes} byte
        {raw.bytes === 1 ? '' : 's'}
      </summary>
      {raw.frames && raw.frames.length > 0 ? (
        <>
          <FrameList frames={raw.frames} label="Frames as received" />
          {raw.framesOmitted ? <p className="muted">{raw.framesOmitted} frames in the middle not kept.</p> : null}
        </>
      ) : raw.prefix !== '' ? (
        <pre tabIndex={0} aria-label="First bytes of the answer">
          {raw.prefix}
        </pre>
      ) : (
        <p className="muted">The answer had no body.</p>
      )}
    </details>
  );
}

/** A reply that came but could not be read (the service's answer is kept to show). */
export function isUnreadableReply(error: ErrorDTO | undefined): error is ErrorDTO & { raw: RawResponseDTO } {
  return error?.raw !== undefined && (error.code === 'UNREADABLE_REPLY' || error.code === 'UNREADABLE_RESPONSE');
}
