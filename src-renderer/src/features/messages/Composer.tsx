// The composer at the bottom of a thread: a reply sent through the same path as the console's send.
import { useState, type FormEvent } from 'react';
import { errorText } from '../../components/errors';
import { useApp } from '../../store/react';

export function Composer({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const sendReply = useApp((s) => s.sendReply);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || sending) return;
    setSending(true);
    const err = await sendReply(teamId, agentId, contact, text);
    setSending(false);
    if (err) setProblem(errorText(err));
    else {
      setProblem(null);
      setText('');
    }
  };
  return (
    <form className="messages-composer" onSubmit={(e) => void send(e)}>
      <label htmlFor="messages-reply" className="sr-only">
        Reply
      </label>
      <textarea
        id="messages-reply"
        value={text}
        rows={2}
        placeholder="Write a reply"
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" disabled={sending || !text.trim()}>
        {sending ? 'Sending…' : 'Send'}
      </button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}
