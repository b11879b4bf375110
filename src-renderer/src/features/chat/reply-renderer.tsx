// Agent replies are rendered by the markdown module, a chunk of its own (marked and the renderer
// stay out of the app's first load). The chat screen waits for it before it shows a conversation,
// so a reply never shows as raw text first; should the chunk fail to load, replies show as plain text.
import { createContext, use, useContext, type ComponentType, type ReactNode } from 'react';

export type ReplyRenderer = ComponentType<{ text: string; streaming?: boolean }>;

function PlainReply({ text }: { text: string }) {
  return (
    <div className="md">
      <p className="chat-plain">{text}</p>
    </div>
  );
}

let loading: Promise<ReplyRenderer> | null = null;

/** The markdown renderer, loaded once; the plain one should its chunk fail to load. */
function loadReplyRenderer(): Promise<ReplyRenderer> {
  loading ??= import('./markdown/Markdown').then(
    (m) => m.Markdown,
    () => PlainReply,
  );
  return loading;
}

const ReplyContext = createContext<ReplyRenderer>(PlainReply);

/** Suspends until the markdown module is loaded, then provides it to the replies below. */
export function WithReplyRenderer({ children }: { children: ReactNode }) {
  const renderer = use(loadReplyRenderer());
  return <ReplyContext value={renderer}>{children}</ReplyContext>;
}

export function useReplyRenderer(): ReplyRenderer {
  return useContext(ReplyContext);
}
