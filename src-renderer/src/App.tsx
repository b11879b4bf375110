// The app frame: skip link, header, the sidebar (navigation and the notices), the routed screen.
import { useEffect, useRef, type MouseEvent } from 'react';
import { ErrorNotice } from './components/ErrorNotice';
import { AccessNeeded, isLockedOut, LinkBanner } from './components/LinkBanner';
import { Nav } from './components/Nav';
import { HubIndicator } from './features/settings/HubConnection';
import { Toasts } from './components/Toasts';
import { focusPageHeading, focusPartHeading, partHeading } from './router/focus';
import { Screen } from './router/Screen';
import { useRoute } from './router/useRoute';
import { useApp } from './store/react';

export function App() {
  const loaded = useApp((s) => s.loaded);
  const lastError = useApp((s) => s.lastError);
  const clearError = useApp((s) => s.clearError);
  const lockedOut = useApp((s) => isLockedOut(s.link));
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const shown = useRef(route);
  useEffect(() => {
    const from = shown.current;
    shown.current = route;
    // On navigation (not on first load), like a page load: back to the top with the header in view,
    // focus on the new page's heading. A route that keeps the screen and opens a part of it (a
    // thread in Messages): focus on that part's heading, the page where it is.
    if (first.current) {
      first.current = false;
      return;
    }
    if (!main.current) return;
    const part = from.name === route.name ? partHeading(main.current) : null;
    return part ? focusPartHeading(part) : focusPageHeading(main.current);
  }, [route]);
  const skip = (e: MouseEvent) => {
    e.preventDefault();
    main.current?.focus();
  };
  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={skip}>
        Skip to content
      </a>
      <header className="app-header">
        <h1>Channel Companion</h1>
        <HubIndicator />
      </header>
      <LinkBanner />
      <div className="layout">
        <div className="sidebar">
          <Nav route={route} />
          <Toasts />
        </div>
        <main id="main" tabIndex={-1} ref={main}>
          {lockedOut ? (
            <AccessNeeded />
          ) : (
            <>
              {lastError && <ErrorNotice error={lastError} onDismiss={clearError} />}
              {!loaded ? <p aria-busy="true">Loading…</p> : <Screen route={route} />}
            </>
          )}
        </main>
      </div>
    </div>
  );
}
