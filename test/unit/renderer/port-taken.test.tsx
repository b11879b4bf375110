// @vitest-environment jsdom
// The tunnel inspector when the receiver's port is held by another process: it says who holds it
// and offers, in one click, the free port the main side found; that port is saved as the tunnel
// port and the notice goes once the receiver listens there.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExposureDTO, TunnelStatusDTO } from '../../../src-shared/contract';
import { Inspector } from '../../../src-renderer/src/features/tunnel/Inspector';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup } from './fixtures';

const exposureOff: ExposureDTO = {
  state: 'off',
  kind: null,
  url: null,
  since: 0,
  error: null,
  registrations: [],
  ngrokAuthtoken: { stored: false, hint: null },
};
const base: TunnelStatusDTO = {
  running: false,
  listenUrl: null,
  forwardTo: 'http://127.0.0.1:3000/hook',
  agents: [],
  counts: { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 },
  exposure: exposureOff,
};
const taken: TunnelStatusDTO = {
  ...base,
  portTaken: { port: 47615, owner: 'another program (python3, process 4242)', alternative: 47616 },
};
const moved: TunnelStatusDTO = { ...base, running: true, listenUrl: 'http://127.0.0.1:47616', portTaken: null };

afterEach(() => cleanup());

function open(first: TunnelStatusDTO) {
  let port = 47615;
  const patches: unknown[] = [];
  const settings = () => ({
    installId: 'i1',
    tunnel: { port, forwardTo: 'http://127.0.0.1:3000/hook', allowLegacySignature: false },
  });
  const t = setup(
    {
      'tunnel.status': () => ({ ok: true, value: port === 47615 ? first : moved }),
      'tunnel.deliveries': { ok: true, value: [] },
      'tunnel.refused': { ok: true, value: [] },
      'settings.get': () => ({ ok: true, value: settings() }),
      'settings.update': ({ patch }: { patch: { tunnel: { port: number } } }) => {
        patches.push(patch);
        port = patch.tunnel.port;
        return { ok: true, value: settings() };
      },
    },
    { t: 0 },
    { nextFrame: (fn) => fn() },
  );
  connectStore(t.store, t.api);
  mount(t.store, <Inspector />);
  return { t, patches };
}

describe('tunnel inspector: a taken port', () => {
  it('names who holds the port and offers the free one; one click saves it and the notice goes', async () => {
    const { t, patches } = open(taken);
    await flush();
    const alert = screen.getAllByRole('alert').find((a) => a.classList.contains('port-taken'))!;
    expect(alert.textContent).toContain(
      'Port 47615 is taken by another program (python3, process 4242), so the receiver cannot listen.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Use port 47616 instead' }));
    await flush();
    await flush();
    // Only the port changes: the forward address goes along as it was.
    expect(patches).toEqual([{ tunnel: { port: 47616, forwardTo: 'http://127.0.0.1:3000/hook' } }]);
    expect(document.querySelector('.port-taken')).toBeNull();
    expect(t.store.getState().tunnelStatus?.listenUrl).toBe('http://127.0.0.1:47616');
    expect(t.store.getState().settings?.tunnel.port).toBe(47616);
  });

  it('with no free port found, it says to choose one in Settings and offers no button', async () => {
    open({ ...taken, portTaken: { port: 47615, owner: 'another program', alternative: null } });
    await flush();
    expect(document.querySelector('.port-taken')?.textContent).toContain('choose another tunnel port in Settings');
    expect(screen.queryByRole('button', { name: /Use port/ })).toBeNull();
  });

  it('says nothing while the port is free', async () => {
    open(base);
    await flush();
    expect(document.querySelector('.port-taken')).toBeNull();
  });
});
