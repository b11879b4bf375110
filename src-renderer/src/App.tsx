// The app frame: skip link, header, side navigation, the routed screen, and the toast region.
import { useEffect, useRef, type MouseEvent } from 'react';
import { ErrorNotice } from './components/ErrorNotice';
import { LinkBanner } from './components/LinkBanner';
import { Nav } from './components/Nav';
import { Toasts } from './components/Toasts';
import { Screen } from './router/Screen';
import { useRoute } from './router/useRoute';
import { useApp } from './store/react';

export function App() {
  const loaded = useApp((s) => s.loaded);
  const lastError = useApp((s) => s.lastError);
  const clearError = useApp((s) => s.clearError);
  const hash = useApp((s) => s.route);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // Move focus to the new screen on navigation (not on first load), like a page load would.
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [hash]);
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
      </header>
      <LinkBanner />
      <div className="layout">
        <Nav route={route} />
        <main id="main" tabIndex={-1} ref={main}>
          {lastError && <ErrorNotice error={lastError} onDismiss={clearError} />}
          {!loaded ? <p aria-busy="true">Loading…</p> : <Screen route={route} />}
        </main>
      </div>
      <Toasts />
    </div>
  );
}
