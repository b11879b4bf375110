// The files of messages in the Messages screen: a message's picture or document, asked of the main
// side (messages.media, which fetches it with the team's key and caches it in the data folder) once
// the bubble is on screen, and saved through messages.saveMedia. Only the latest MEDIA_KEPT answers
// stay in the window.
import type { ErrorDTO, MessageMediaDTO, Result, SavedMediaDTO } from '../../../src-shared/contract';
import type { Slice } from './env';

type MediaEntry =
  { state: 'loading' } | { state: 'ready'; media: MessageMediaDTO } | { state: 'failed'; error: ErrorDTO };

export interface MessageMediaSlice {
  /** By mediaKey(teamId, agentId, messageKey). */
  messageMedia: Record<string, MediaEntry>;
  /** Asks for a message's file unless it is here or on its way (a failure is asked again). */
  loadMessageMedia(teamId: string, agentId: string, messageKey: string): Promise<void>;
  saveMessageMedia(teamId: string, agentId: string, messageKey: string): Promise<Result<SavedMediaDTO>>;
}

export const mediaKey = (teamId: string, agentId: string, messageKey: string): string =>
  `${teamId}/${agentId}/${messageKey}`;

const MEDIA_KEPT = 60;

export const messageMediaSlice: Slice<MessageMediaSlice> = ({ set, get, api }) => ({
  messageMedia: {},
  loadMessageMedia: async (teamId, agentId, messageKey) => {
    const key = mediaKey(teamId, agentId, messageKey);
    const had = get().messageMedia[key];
    if (had && had.state !== 'failed') return;
    set((s) => ({ messageMedia: { ...s.messageMedia, [key]: { state: 'loading' } } }));
    const r = await api['messages.media']({ teamId, agentId, messageKey });
    const entry: MediaEntry = r.ok ? { state: 'ready', media: r.value } : { state: 'failed', error: r.error };
    set((s) => {
      const { [key]: _old, ...rest } = s.messageMedia;
      const kept = Object.entries(rest).slice(-(MEDIA_KEPT - 1));
      return { messageMedia: { ...Object.fromEntries(kept), [key]: entry } };
    });
  },
  saveMessageMedia: (teamId, agentId, messageKey) => api['messages.saveMedia']({ teamId, agentId, messageKey }),
});
