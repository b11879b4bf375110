// How reading an agent's session stands, said once: a failed read shows its error with when the
// session was last read (or that it never was); "Asking…" shows only while a read is in flight and
// there is no error to show.
import { ErrorNotice } from '../../components/ErrorNotice';
import { TimeAgo } from '../../components/TimeAgo';
import type { PairingView } from '../../store/pairing';

export function SessionRead({ view, now, asking }: { view: PairingView | undefined; now: number; asking: string }) {
  if (view?.error) {
    return (
      <>
        <ErrorNotice error={view.error} />
        <p className="muted">
          {view.readAt === null ? (
            'The session has not been read yet.'
          ) : (
            <>
              Last read <TimeAgo at={view.readAt} now={now} />; what follows is from then.
            </>
          )}
        </p>
      </>
    );
  }
  if (!view?.session && view?.asking) return <p aria-busy="true">{asking}</p>;
  return null;
}
