// The chat, console and tunnel slices of the one root store, and their event wiring.
// The root store spreads createSlicesB(set, get, api) into its state; connectSlicesB(store, api)
// subscribes to chat.*, send.progress and tunnel.* events and returns the unsubscribe.
import type { Api } from '../../../src-shared/contract';
import { createChatSlice, type ChatSlice } from './b/chat';
import { createConsoleSlice, type ConsoleSlice } from './b/console';
import { createTunnelSlice, type TunnelSlice } from './b/tunnel';
import { defaultEnv, type GetOf, type SetOf, type SliceEnv } from './b/types';

export type SlicesB = ChatSlice & ConsoleSlice & TunnelSlice;
export type SetB = SetOf<SlicesB>;
export type GetB = GetOf<SlicesB>;

export type { ChatSlice, ChatConversation, ChatTurnStats, ChatFrame } from './b/chat';
export { convKey } from './b/chat';
export type { ConsoleSlice, SendRecord, SendState, SendKind } from './b/console';
export type { TunnelSlice } from './b/tunnel';
export type { SliceEnv } from './b/types';

/** `api` is the contract's Api (the bridge), not zustand's store api. `env` is for tests. */
export function createSlicesB(set: SetB, get: GetB, api: Api, env: SliceEnv = defaultEnv()): SlicesB {
  return {
    ...createChatSlice(set, get, api, env),
    ...createConsoleSlice(set, get, api, env),
    ...createTunnelSlice(set, get, api),
  };
}

export function connectSlicesB(store: { getState(): SlicesB }, api: Api): () => void {
  const s = () => store.getState();
  const offs = [
    api.on('chat.token', ({ turnId, token }) => s().chatToken(turnId, token)),
    api.on('chat.done', ({ turnId, result }) => s().chatDone(turnId, result)),
    api.on('chat.error', ({ turnId, error }) => s().chatError(turnId, error)),
    api.on('send.progress', (p) => s().applySendProgress(p)),
    api.on('tunnel.delivery', (d) => s().applyDelivery(d)),
    api.on('tunnel.forward', (f) => s().applyForward(f)),
  ];
  return () => offs.forEach((off) => off());
}
