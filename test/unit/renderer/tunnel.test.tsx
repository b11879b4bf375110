// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryDetailDTO, DeliverySummaryDTO, Result, TeamDTO, TunnelStatusDTO } from '../../../src-shared/contract';
import { TunnelScreen } from '../../../src-renderer/src/features/tunnel/TunnelScreen';
import { applyFilters, NO_FILTERS } from '../../../src-renderer/src/features/tunnel/DeliveryList';
import { downSince } from '../../../src-renderer/src/features/tunnel/verdict';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup as storeSetup } from './fixtures';

const status: TunnelStatusDTO = {
  running: true,
  listenUrl: 'http://127.0.0.1:4555/',
  forwardTo: 'http://127.0.0.1:3000/hook',
  agents: [{ teamId: 'team1', agentId: 'a1', publicUrl: 'https://pub.example.test/hook', hasSecret: true, localAppDownSince: null, pending: 0 }],
  counts: { received: 3, verified: 2, rejected: 1, forwarded: 2, failed: 0 },
};

const summary = (id: string, over: Partial<DeliverySummaryDTO> = {}): DeliverySummaryDTO => ({
  id,
  receivedAt: 1_700_000_000_000,
  teamId: 'team1',
  agentId: 'a1',
  event: 'message.received',
  from: '15550102000',
  messageId: `m-${id}`,
  messageType: 'text',
  preview: `hello ${id}`,
  verification: 'valid',
  duplicate: false,
  forwardStatus: 200,
  ...over,
});

const list = [
  summary('d3', { receivedAt: 1_700_000_003_000, agentId: 'a2', from: '4930123456', messageType: 'image', verification: 'invalid', forwardStatus: null }),
  summary('d2', { receivedAt: 1_700_000_002_000, messageType: 'document' }),
  summary('d1', { receivedAt: 1_700_000_001_000 }),
];

const detail: DeliveryDetailDTO = {
  ...summary('d1', { receivedAt: 1_700_000_001_000 }),
  headers: { 'content-type': 'application/json', 'x-webhook-signature': 't=1,v1=abc' },
  rawBody: '{"event":"message.received","from":"15550102000"}',
  verificationDetail: 'found v1 signature\ntimestamp within 300 s\nsignature matches',
  forwards: [{ deliveryId: 'd1', at: 1_700_000_001_100, target: 'http://127.0.0.1:3000/hook', status: 500, durationMs: 12, error: 'Internal Server Error' }],
};

const team: TeamDTO = { teamId: 'team1', label: 'Ops', baseUrl: 'https://api.example.test', keyHint: '…9f2c', authError: false, agentIds: ['a1', 'a2'] };

function setup(answers: Parameters<typeof storeSetup>[0] = {}) {
  const t = storeSetup(
    {
      'teams.list': { ok: true, value: [team] },
      'tunnel.status': { ok: true, value: status },
      'tunnel.deliveries': { ok: true, value: list },
      'tunnel.delivery': { ok: true, value: detail },
      'tunnel.replay': { ok: true, value: { deliveryId: 'd1', at: 1_700_000_009_000, target: 'http://127.0.0.1:3000/hook', status: 202, durationMs: 7 } },
      'tunnel.export': ({ format }: { format: string }) =>
        format === 'curl'
          ? { ok: true, value: { format: 'curl', filename: 'd1.sh', content: "curl -X POST 'http://127.0.0.1:3000/hook'" } }
          : { ok: true, value: { format: 'fixture', filename: 'delivery-d1.json', content: '{"id":"d1"}' } },
      ...answers,
    },
    { t: 0 },
    { nextFrame: (fn) => fn() },
  );
  t.store.setState({ teams: [team] });
  connectStore(t.store, t.api);
  mount(t.store, <TunnelScreen />);
  return t;
}

const bodyRows = () => [...document.querySelectorAll('.delivery-table tbody tr')] as HTMLElement[];

let writeText: ReturnType<typeof vi.fn>;
beforeEach(() => {
  writeText = vi.fn(async () => undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => cleanup());

describe('tunnel screen', () => {
  it('shows the receiver, the registered webhook and the live list (new deliveries on top)', async () => {
    const t = setup();
    await flush();
    expect(screen.getByText('http://127.0.0.1:4555/')).toBeTruthy();
    expect(screen.getByText('https://pub.example.test/hook')).toBeTruthy();
    expect(screen.getByText('Held')).toBeTruthy();
    expect(bodyRows().map((r) => r.textContent)).toHaveLength(3);
    act(() => t.emit('tunnel.delivery', summary('d4', { receivedAt: 1_700_000_004_000, preview: 'brand new', verification: 'expired', forwardStatus: null })));
    const first = bodyRows()[0]!;
    expect(first.textContent).toContain('brand new');
    expect(within(first).getByText('Rejected — timestamp too old')).toBeTruthy();
    expect(within(first).getByText('Not forwarded')).toBeTruthy();
    // a forward result updates the row
    act(() => t.emit('tunnel.forward', { deliveryId: 'd4', at: 1_700_000_004_100, target: 'x', status: 200, durationMs: 3 }));
    expect(within(bodyRows()[0]!).getByText('Forwarded — 200')).toBeTruthy();
  });

  it('filters by agent, verdict, from and type', async () => {
    setup();
    await flush();
    const filters = () => within(screen.getByRole('group', { name: 'Filter deliveries' }));
    fireEvent.change(filters().getByLabelText('Verdict'), { target: { value: 'invalid' } });
    expect(bodyRows()).toHaveLength(1);
    expect(bodyRows()[0]!.textContent).toContain('hello d3');
    fireEvent.change(filters().getByLabelText('Verdict'), { target: { value: '' } });
    fireEvent.change(filters().getByLabelText('Agent'), { target: { value: 'a1' } });
    expect(bodyRows()).toHaveLength(2);
    fireEvent.change(filters().getByLabelText('Type'), { target: { value: 'document' } });
    expect(bodyRows().map((r) => r.textContent)).toEqual([expect.stringContaining('hello d2')]);
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    fireEvent.change(filters().getByLabelText('From'), { target: { value: '+49 30' } });
    expect(bodyRows()).toHaveLength(1);
    expect(screen.getByText('1 of 3 deliveries shown')).toBeTruthy();
    expect(applyFilters(list, NO_FILTERS)).toHaveLength(3);
  });

  it('opens a delivery: raw body, headers, verification steps and forward attempts', async () => {
    const t = setup();
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.delivery')?.args).toEqual({ id: 'd1' });
    expect(screen.getByLabelText('Raw body').textContent).toBe(detail.rawBody);
    expect(screen.getByText('x-webhook-signature')).toBeTruthy();
    expect(screen.getByText('timestamp within 300 s')).toBeTruthy();
    expect(screen.getByText('500 — Internal Server Error')).toBeTruthy();
    expect(screen.getByText('12 ms')).toBeTruthy();
  });

  it('replays as received, re-signed, and with an edited body', async () => {
    const t = setup();
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Replay as received' }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Replay re-signed' }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Edit and replay…' }));
    const box = screen.getByLabelText('Body to replay (re-signed)') as HTMLTextAreaElement;
    expect(box.value).toBe(detail.rawBody);
    fireEvent.change(box, { target: { value: '{"edited":true}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Replay edited body' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'tunnel.replay').map((c) => c.args)).toEqual([
      { id: 'd1', mode: 'as-received' },
      { id: 'd1', mode: 're-signed' },
      { id: 'd1', mode: 're-signed', body: '{"edited":true}' },
    ]);
    expect(screen.getByText('Replayed (edited, re-signed): 202 in 7 ms.')).toBeTruthy();
  });

  it('copies as curl and downloads the JSON fixture through tunnel.export', async () => {
    const t = setup();
    const createObjectURL = vi.fn(() => 'blob:fixture');
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await flush();
    expect(writeText).toHaveBeenCalledWith("curl -X POST 'http://127.0.0.1:3000/hook'");
    fireEvent.click(screen.getByRole('button', { name: 'Download JSON fixture' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'tunnel.export').map((c) => c.args)).toEqual([
      { id: 'd1', format: 'curl' },
      { id: 'd1', format: 'fixture' },
    ]);
    expect(clicked).toEqual(['delivery-d1.json']);
    expect(screen.getByText('Downloaded delivery-d1.json.')).toBeTruthy();
    click.mockRestore();
  });

  it('shows the local app state per agent from tunnel.status: down since and pending', async () => {
    const down = 1_700_000_050_000;
    setup({
      'tunnel.status': {
        ok: true,
        value: { ...status, agents: [{ ...status.agents[0]!, localAppDownSince: down, pending: 3 }, { teamId: 'team1', agentId: 'a2', publicUrl: null, hasSecret: false, localAppDownSince: null, pending: 0 }] },
      },
    });
    await flush();
    const facts = document.querySelector('.tunnel-facts')!;
    expect(facts.textContent).toContain(`Down since ${new Date(down).toLocaleTimeString()}`);
    expect(facts.textContent).toContain('3 waiting to be forwarded');
    const rows = within(screen.getByRole('table', { name: 'Registered webhooks' })).getAllByRole('row');
    expect(rows[1]!.textContent).toContain(`local app down since ${new Date(down).toLocaleTimeString()}, 3 pending`);
    expect(rows[2]!.textContent).toContain('—');
    expect(rows[2]!.textContent).not.toContain('pending');
  });

  it('shows what the local app answered with each forward attempt', async () => {
    setup({ 'tunnel.delivery': { ok: true, value: { ...detail, forwards: [{ ...detail.forwards[0]!, responseBody: '{"error":"db down"}' }] } } });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    expect(screen.getByText('{"error":"db down"}')).toBeTruthy();
  });

  it('downloads the media of an image delivery through tunnel.media (a Blob download); none for text', async () => {
    const t = setup({
      'tunnel.delivery': ({ id }: { id: string }) => ({ ok: true, value: { ...detail, ...summary(id, { messageType: id === 'd1' ? 'text' : 'image' }) } }),
      'tunnel.media': { ok: true, value: { filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' } },
    });
    const blobs: Blob[] = [];
    Object.assign(URL, { createObjectURL: vi.fn((b: Blob) => (blobs.push(b), 'blob:media')), revokeObjectURL: vi.fn() });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    expect(screen.queryByRole('button', { name: 'Download media' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d3/ }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Download media' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.media')?.args).toEqual({ id: 'd3' });
    expect(clicked).toEqual(['photo.png']);
    expect(blobs[0]?.type).toBe('image/png');
    expect([...new Uint8Array(await blobs[0]!.arrayBuffer())]).toEqual([1, 2, 3]);
    expect(screen.getByText('Downloaded photo.png (3 bytes).')).toBeTruthy();
    click.mockRestore();
  });

  it('a failed media download says why', async () => {
    setup({
      'tunnel.delivery': { ok: true, value: { ...detail, messageType: 'document' } },
      'tunnel.media': { ok: false, error: { kind: 'invalid-request', code: 'MEDIA_TOO_LARGE', message: 'The file is larger than 25 MiB.' } },
    });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: /Details of delivery d1/ }));
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Download media' }));
    await flush();
    expect(screen.getByText(/larger than 25 MiB/)).toBeTruthy();
  });

  it('simulates an inbound image and registers a public URL', async () => {
    const t = setup({
      'tunnel.simulate': { ok: true, value: summary('d9', { messageType: 'image', verification: 'simulated', preview: 'sim pic' }) },
      'webhook.register': { ok: true, value: { mode: 'webhook', url: 'https://new.example.test/hook' } },
    });
    await flush();
    fireEvent.change(screen.getByLabelText('Message type'), { target: { value: 'image' } });
    fireEvent.change(screen.getByLabelText('Caption'), { target: { value: 'look' } });
    fireEvent.click(screen.getByRole('button', { name: 'Simulate' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'tunnel.simulate')?.args).toEqual({ teamId: 'team1', agentId: 'a1', type: 'image', from: '15550102000', caption: 'look' });
    expect(bodyRows()[0]!.textContent).toContain('sim pic');
    expect(within(bodyRows()[0]!).getByText('Simulated')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Public URL'), { target: { value: 'not a url' } });
    expect(screen.getByText(/not a full URL/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Public URL'), { target: { value: 'https://new.example.test/hook' } });
    fireEvent.click(screen.getByRole('button', { name: 'Register' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.register')?.args).toEqual({ teamId: 'team1', agentId: 'a1', publicUrl: 'https://new.example.test/hook' });
    expect(screen.getByText('Registered for a1: mode webhook, URL https://new.example.test/hook.')).toBeTruthy();
  });

  it('a failing status says what happened', async () => {
    const err: Result<never> = { ok: false, error: { kind: 'internal', code: 'TUNNEL_OFF', message: 'The tunnel is not running.' } };
    setup({ 'tunnel.status': err });
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Something went wrong inside the app: The tunnel is not running.');
  });
});

describe('local app down since', () => {
  const f = (at: number, status: number | null) => ({ deliveryId: 'd', at, target: 't', status, durationMs: 1 });
  it('is the start of the trailing run of failures', () => {
    expect(downSince([f(1, 200), f(2, null), f(3, 502)])).toBe(2);
    expect(downSince([f(1, null), f(2, 200)])).toBeNull();
    expect(downSince([])).toBeNull();
  });
});
