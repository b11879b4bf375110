// IPC: one ipcMain.handle per contract request name (nothing else is registered), each checking that
// the sender is the main frame of a window we created, showing our app's origin. Args are validated by
// the handlers (zod) before anything runs. Events are pushed only to our windows.
import {
  EVENT_PREFIX,
  IPC_PREFIX,
  REQUEST_NAMES,
  type AnyEvent,
  type ErrorDTO,
  type Result,
} from '../../src-shared/contract';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';

/** The parts of Electron's WebFrameMain the sender check reads. */
interface FrameLike {
  readonly url: string;
  readonly parent: FrameLike | null;
  /** Chromium's id of the renderer process that owns the frame. */
  readonly processId: number;
  /** The frame's id within that process; the same for every WebFrameMain object of one frame. */
  readonly routingId: number;
  readonly detached?: boolean;
}

interface SenderLike {
  id: number;
  readonly mainFrame: FrameLike | null;
}

interface InvokeEventLike {
  sender: SenderLike;
  readonly senderFrame: FrameLike | null;
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

const FORBIDDEN: ErrorDTO = {
  kind: 'forbidden',
  code: 'FORBIDDEN_SENDER',
  message: 'This request did not come from a Channel Companion window.',
};

/** scheme://host[:port] of a URL, or null when it does not parse. */
function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

/**
 * The sender is a window we created, the frame is that window's top frame (not an iframe) and it
 * shows our app's origin. The frame is matched to the window's main frame by processId and
 * routingId: Electron may hand out a new WebFrameMain object per event, so object identity proves
 * nothing. A frame that is gone, detached or throws on access is refused.
 */
function isTrustedSender(event: InvokeEventLike, registry: WindowRegistry, appOrigin: string): boolean {
  try {
    const frame = event.senderFrame;
    if (!frame || frame.detached === true || frame.parent !== null) return false;
    if (!registry.has(event.sender.id)) return false;
    const main = event.sender.mainFrame;
    if (!main || main.processId !== frame.processId || main.routingId !== frame.routingId) return false;
    return originOf(frame.url) === appOrigin;
  } catch {
    return false;
  }
}

export function registerIpc(
  ipcMain: IpcMainLike,
  handlers: Handlers,
  registry: WindowRegistry,
  appUrl: string,
): () => void {
  const appOrigin = originOf(appUrl);
  if (!appOrigin) throw new Error(`Not a URL: ${appUrl}`);
  for (const name of REQUEST_NAMES) {
    const handler = handlers[name] as (raw: unknown) => Promise<Result<unknown>>;
    ipcMain.handle(IPC_PREFIX + name, async (event, args) => {
      if (!isTrustedSender(event, registry, appOrigin)) return { ok: false, error: FORBIDDEN } satisfies Result<never>;
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
