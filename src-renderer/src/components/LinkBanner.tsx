// The banner shown while the main side (the browser host, Electron's main process) does not answer
// or refuses this window: what is wrong, when it was last heard, that agents read as unknown, and
// what to do. It goes away by itself when the main side answers again; a screen reader hears so, and
// that what is shown is current once everything was read again (not before).
// A browser tab refused before it was ever answered (opened without its token, or with an old one)
// has nothing else to show: the page says only that, once (AccessNeeded, in place of the screens).
import { useId, type ReactNode } from 'react';
import { isStale, type LinkView } from '../store/link';
import { useApp } from '../store/react';
import { TimeAgo } from './TimeAgo';
import './link-banner.css';

const SERVE = <code>channel-companion serve</code>;

function words(link: LinkView): { title: string; todo: ReactNode } {
  const browser = link.host === 'browser';
  if (link.state === 'refused') {
    if (!browser)
      return {
        title: 'Channel Companion refused this window’s requests.',
        todo: 'Quit Channel Companion and start it again.',
      };
    if (link.error?.code === 'NO_TOKEN') {
      return {
        title: 'This page was opened without its access link.',
        todo: <>Open the full link printed by {SERVE} (http://127.0.0.1:PORT/#token=…).</>,
      };
    }
    return {
      title: 'This page’s access link is no longer accepted.',
      todo: (
        <>
          The companion was started with a new access token (<code>--new-token</code>, or another{' '}
          <code>--token-env</code> value) and printed a new link (http://127.0.0.1:PORT/#token=…). Open that link; this
          tab is fine.
        </>
      ),
    };
  }
  return browser
    ? {
        title: 'The companion is not answering.',
        todo: (
          <>
            This page reconnects by itself when it is back: a restart keeps its address and access link. Is {SERVE}{' '}
            still running? If it said its port was taken, open the new link it printed.
          </>
        ),
      }
    : {
        title: 'Channel Companion’s background process is not answering.',
        todo: 'This window reconnects by itself when it is back. If this lasts, quit Channel Companion and start it again.',
      };
}

/** The companion refused this browser tab before ever answering it: only the access message is shown. */
export function isLockedOut(link: LinkView): boolean {
  return link.state === 'refused' && link.host === 'browser' && link.lastHeardAt === null;
}

export function AccessNeeded() {
  const link = useApp((s) => s.link);
  const titleId = useId();
  const { title, todo } = words(link);
  return (
    <section className="access-needed card" aria-labelledby={titleId}>
      <h2 id={titleId} tabIndex={-1}>
        {title}
      </h2>
      <p>{todo}</p>
      <p className="muted">Nothing is shown or changed from this tab until then.</p>
    </section>
  );
}

export function LinkBanner() {
  const link = useApp((s) => s.link);
  const titleId = useId();
  const stale = isStale({ link }) && !isLockedOut(link);
  const { title, todo } = words(link);
  return (
    <>
      {stale && (
        <section className="link-banner" aria-labelledby={titleId}>
          <p id={titleId} role="alert">
            <span aria-hidden="true">⚠ </span>
            <strong>{title}</strong>
          </p>
          <p>
            {link.lastHeardAt === null ? (
              'Not heard from since this page opened.'
            ) : (
              <>
                Last heard <TimeAgo at={link.lastHeardAt} />.
              </>
            )}{' '}
            Agents show as unknown meanwhile. {todo}
          </p>
        </section>
      )}
      <p className="sr-only" role="status">
        {stale
          ? ''
          : link.reloading === 'recovered'
            ? 'The companion answers again; reading what changed meanwhile…'
            : link.recoveredAt !== null
              ? 'The companion answers again; what is shown is current.'
              : ''}
      </p>
    </>
  );
}
