// IPC: one ipcMain.handle per contract request name (nothing else is registered), each checking that
// the sender is the main frame of a window we created, showing our app URL. Args are validated by
// the handlers (zod) before anything runs. Events are pushed only to our windows.
import { EVENT_PREFIX, IPC_PREFIX, REQUEST_NAMES, type AnyEvent, type ErrorDTO, type Result } from '../../src-shared/contract';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';

export interface FrameLike {
  url: string;
  parent: FrameLike | null;
}

export interface SenderLike {
  id: number;
  mainFrame?: FrameLike;
}

export interface InvokeEventLike {
  sender: SenderLike;
  senderFrame: FrameLike | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface ContentsLike {
  id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

/** The web contents of the windows we created. */
export class WindowRegistry {
  private readonly contents = new Map<number, ContentsLike>();
  add(c: ContentsLike): void {
    this.contents.set(c.id, c);
  }
  remove(id: number): void {
    this.contents.delete(id);
  }
  has(id: number): boolean {
    return this.contents.has(id);
  }
  all(): ContentsLike[] {
    return [...this.contents.values()].filter((c) => !c.isDestroyed());
  }
}

export const FORBIDDEN: ErrorDTO = { kind: 'forbidden', code: 'FORBIDDEN_SENDER', message: 'This request did not come from a Channel Companion window.' };

function sameOrigin(a: string, b: string): boolean {
  try {
    const ua = new URL(a);
    const ub = new URL(b);
    return ua.protocol === ub.protocol && ua.host === ub.host && ua.origin === ub.origin;
  } catch {
    return false;
  }
}

/** The sender is one of our windows, the frame is its main frame, and it shows our app's origin. */
export function isTrustedSender(event: InvokeEventLike, registry: WindowRegistry, appUrl: string): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  if (event.sender.mainFrame !== undefined && event.sender.mainFrame !== frame) return false;
  if (!registry.has(event.sender.id)) return false;
  return sameOrigin(frame.url, appUrl);
}

export function registerIpc(ipcMain: IpcMainLike, handlers: Handlers, registry: WindowRegistry, appUrl: string): () => void {
  for (const name of REQUEST_NAMES) {
    const handler = handlers[name] as (raw: unknown) => Promise<Result<unknown>>;
    ipcMain.handle(IPC_PREFIX + name, async (event, args) => {
      if (!isTrustedSender(event, registry, appUrl)) return { ok: false, error: FORBIDDEN } satisfies Result<never>;
      return handler(args);
    });
  }
  return () => {
    for (const name of REQUEST_NAMES) ipcMain.removeHandler(IPC_PREFIX + name);
  };
}

/** Pushes every contract event to every window we created. Returns the unsubscribe. */
export function forwardEvents(events: ContractEvents, registry: WindowRegistry): () => void {
  return events.onAny((e: AnyEvent) => {
    for (const c of registry.all()) c.send(EVENT_PREFIX + e.name, e.payload);
  });
}
