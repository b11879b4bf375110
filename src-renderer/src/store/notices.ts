// In-app notices (toasts): short, dismissable, announced politely.
import type { AlertEventDTO } from '../../../src-shared/contract';
import { agentHref } from '../router/routes';
import { localId, type Slice } from './env';

type NoticeTone = 'info' | 'success' | 'warning' | 'urgent';

export interface Notice {
  id: string;
  tone: NoticeTone;
  title: string;
  body?: string;
  /** A route to open from the notice, e.g. the agent's page. */
  route?: string;
  at: number;
}

export type NoticeInput = Omit<Notice, 'id' | 'at'>;

export interface NoticesSlice {
  notices: Notice[];
  pushNotice(n: NoticeInput): string;
  dismissNotice(id: string): void;
}

const MAX = 5;

export const noticesSlice: Slice<NoticesSlice> = ({ set, env }) => ({
  notices: [],
  pushNotice: (n) => {
    const id = localId('notice');
    set((s) => ({ notices: [...s.notices, { ...n, id, at: env.now() }].slice(-MAX) }));
    return id;
  },
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
});

/** The in-app notice for an alert event: only for what the alert policy told the person about (`notify`). */
export function noticeFor(e: AlertEventDTO, agentLabel: string): NoticeInput | null {
  if (!e.notify) return null;
  const route = agentHref(e.incident.teamId, e.incident.agentId);
  if (e.change !== 'resolved') {
    const tone = e.incident.severity === 'urgent' ? 'urgent' : e.incident.severity === 'warning' ? 'warning' : 'info';
    return { tone, title: `${agentLabel}: ${e.incident.title}`, body: e.incident.message, route };
  }
  return { tone: 'success', title: `${agentLabel}: back to normal`, body: e.incident.title, route };
}
