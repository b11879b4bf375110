// The tunnel screen, loaded on first visit (its own chunk, off the first load).
import { lazy, Suspense } from 'react';

const Inspector = lazy(() => import('./Inspector').then((m) => ({ default: m.Inspector })));

export function TunnelScreen() {
  return (
    <Suspense fallback={<p aria-busy="true">Loading the webhook tunnel…</p>}>
      <Inspector />
    </Suspense>
  );
}
