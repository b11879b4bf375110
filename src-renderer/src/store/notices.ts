// In-app notices (toasts): short, dismissable, announced politely.
import type { Slice, StoreEnv } from './slices';

export type NoticeTone = 'info' | 'success' | 'warning' | 'urgent';

export interface Notice {
  id: string;
  tone: NoticeTone;
  title: string;
  body?: string;
  /** A route to open from the notice, e.g. the agent's page. */
  route?: string;
  at: number;
}

export interface NoticesSlice {
  notices: Notice[];
  pushNotice(n: Omit<Notice, 'id' | 'at'>): string;
  dismissNotice(id: string): void;
}

const MAX = 5;
let seq = 0;

export const noticesSlice =
  (env: StoreEnv): Slice<NoticesSlice> =>
  (set) => ({
    notices: [],
    pushNotice: (n) => {
      seq += 1;
      const id = `n${seq}`;
      set((s) => ({ notices: [...s.notices, { ...n, id, at: env.now() }].slice(-MAX) }));
      return id;
    },
    dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  });
