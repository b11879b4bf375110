import { Aborted, ServiceError } from '../../../../src-main/core/api/errors';
import type { ChatStream, ServiceClient } from '../../../../src-main/core/api/service';
import type { ChatRequest, ChatResult, ChatStreamEvent, RawFrame } from '../../../../src-main/core/api/types';

export class ManualClock {
  t = 1_700_000_000_000;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => setTimeout(fn, ms);
  clearTimeout = (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>);
}

/** A step of a scripted stream: an event, time passing, or a pause until the stream is aborted. */
export type Step = ChatStreamEvent | { advance: number } | { hang: true };

export interface FakeChat {
  streamCalls: ChatRequest[];
  chatCalls: ChatRequest[];
  aborted: number;
}

export function fakeClient(
  clock: ManualClock,
  script: { stream?: Step[]; frames?: RawFrame[]; chat?: ChatResult | ServiceError | 'hang'; chatAdvance?: number },
): { client: ServiceClient; calls: FakeChat } {
  const calls: FakeChat = { streamCalls: [], chatCalls: [], aborted: 0 };
  const notUsed = () => {
    throw new Error('not used in chat tests');
  };
  const client = {
    baseUrl: 'http://fake',
    rateLimit: {},
    startPairing: notUsed,
    getSession: notUsed,
    send: notUsed,
    setWebhook: notUsed,
    downloadMedia: notUsed,
    checkContact: notUsed,
    updateSettings: notUsed,
    sendBudget: notUsed,
    cancelQueued: notUsed,
    close: async () => undefined,
    async chat(_agentId: string, req: ChatRequest, opts?: { signal?: AbortSignal }) {
      calls.chatCalls.push(req);
      clock.t += script.chatAdvance ?? 0;
      const c = script.chat;
      if (c === 'hang') {
        return new Promise<ChatResult>((_, reject) =>
          opts?.signal?.addEventListener('abort', () => reject(new Aborted())),
        );
      }
      if (c instanceof ServiceError) throw c;
      if (!c) throw new Error('no chat scripted');
      return c;
    },
    chatStream(_agentId: string, req: ChatRequest): ChatStream {
      calls.streamCalls.push(req);
      let abort: () => void = () => undefined;
      const abortedP = new Promise<void>((r) => (abort = r));
      let isAborted = false;
      const steps = script.stream ?? [];
      return {
        frames: () => ({ frames: script.frames ?? [], omitted: 0 }),
        abort() {
          if (!isAborted) calls.aborted++;
          isAborted = true;
          abort();
        },
        async *[Symbol.asyncIterator]() {
          for (const s of steps) {
            if (isAborted) return;
            if ('advance' in s) clock.t += s.advance;
            else if ('hang' in s) {
              await abortedP;
              return;
            } else {
              await new Promise((r) => setImmediate(r));
              if (isAborted) return;
              yield s;
            }
          }
        },
      };
    },
  } as unknown as ServiceClient;
  return { client, calls };
}
