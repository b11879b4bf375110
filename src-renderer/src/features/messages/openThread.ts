// Tells the main side which thread this window shows with focus (messages.focus), so no
// new-message notification is made for a conversation the person is reading: derived from the
// route (#/messages?team=…&agent=…&with=…) and whether the window has focus and is visible. Sent
// only when it changes. A route that opens a thread is reported once the thread's messages are in and
// painted, so the host answers the thread's request first; leaving a thread is reported at once.
import type { Api } from '../../../../src-shared/contract';
import { parseRoute } from '../../router/routes';
import type { AppStore } from '../../store';
import { afterNextPaint } from '../../store/frame-batch';
import { threadKey } from '../../store/messages';

export interface FocusWindow {
  hasFocus(): boolean;
  visible(): boolean;
  /** Calls fn on focus, blur and visibility changes; answers the unsubscribe. */
  onChange(fn: () => void): () => void;
}

/** The thread the route shows, or null. */
function threadOfRoute(route: string): { teamId?: string; agentId: string; phone: string } | null {
  const r = parseRoute(route);
  if (r.name !== 'messages' || !r.agentId || !r.contact) return null;
  return r.teamId
    ? { teamId: r.teamId, agentId: r.agentId, phone: r.contact }
    : { agentId: r.agentId, phone: r.contact };
}

export function reportOpenThread(store: AppStore, api: Api, win: FocusWindow): () => void {
  let sent = '';
  const report = (): void => {
    const t = win.hasFocus() && win.visible() ? threadOfRoute(store.getState().route) : null;
    const key = t ? JSON.stringify(t) : 'none';
    if (key === sent) return;
    sent = key;
    void api['messages.focus'](t ?? {});
  };
  /** Cancels a report waiting for a thread to be painted. */
  let waiting = (): void => undefined;
  const now = (): void => {
    waiting();
    report();
  };
  const onRoute = (route: string): void => {
    waiting();
    const t = threadOfRoute(route);
    if (!t?.teamId) return report();
    const key = threadKey(t.teamId, t.agentId, t.phone);
    let cancelPaint = (): void => undefined;
    const painted = (): void => {
      offLoaded();
      cancelPaint = afterNextPaint(report);
    };
    const offLoaded = store.subscribe((s) => {
      if (s.threads[key]?.loaded) painted();
    });
    waiting = () => {
      offLoaded();
      cancelPaint();
    };
    if (store.getState().threads[key]?.loaded) painted();
  };
  report();
  const offWin = win.onChange(now);
  const offStore = store.subscribe((s, prev) => {
    if (s.route !== prev.route) onRoute(s.route);
  });
  return () => {
    waiting();
    offWin();
    offStore();
    // This window shows no thread any more.
    if (sent !== 'none') void api['messages.focus']({});
  };
}
