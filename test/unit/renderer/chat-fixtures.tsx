// The chat screen on a fake Api: a manual frame clock, the settings loaded, mounted once the
// markdown chunk is in.
import { act, fireEvent, screen } from '@testing-library/react';
import type { AppSettingsDTO } from '../../../src-shared/contract';
import { ChatScreen } from '../../../src-renderer/src/features/chat/ChatScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup as storeSetup } from './fixtures';

/** The install id the settings carry: the default chat user id. */
export const INSTALL_ID = 'install-abc12345';

/**
 * The store, connected to a fake Api, with a manual frame clock (frames run only when the test says)
 * and the settings already loaded (or, with null, still loading).
 */
export function setup(answers: Parameters<typeof storeSetup>[0] = {}, installId: string | null = INSTALL_ID) {
  let turns = 0;
  const settings = installId === null ? null : ({ installId } as AppSettingsDTO);
  const frames: (() => void)[] = [];
  const clock = { t: 1000 };
  const t = storeSetup(
    {
      'chat.startTurn': () => ({ ok: true, value: { turnId: `t${++turns}` } }),
      'chat.transcript': { ok: true, value: [] },
      'chat.stopTurn': { ok: true, value: { stopped: true } },
      'settings.get': settings ? { ok: true, value: settings } : () => new Promise(() => undefined),
      ...answers,
    },
    clock,
    { nextFrame: (fn) => void frames.push(fn) },
  );
  t.store.setState({ settings });
  connectStore(t.store, t.api);
  const runFrame = () => act(() => frames.splice(0).forEach((f) => f()));
  const tick = (ms: number) => (clock.t += ms);
  // The chat shows once the markdown chunk is loaded (it suspends until then).
  const mountChat = async () => {
    let r: ReturnType<typeof mount> | undefined;
    await act(async () => {
      r = mount(t.store, <ChatScreen teamId="team1" agentId="a1" />);
    });
    if (settings) await screen.findByLabelText('Message');
    return r;
  };
  return { ...t, frames, runFrame, tick, mount: mountChat };
}

export async function sendHello(text = 'hi **there**') {
  const box = screen.getByLabelText('Message');
  fireEvent.change(box, { target: { value: text } });
  fireEvent.keyDown(box, { key: 'Enter' });
  await flush();
}
