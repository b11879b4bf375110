import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookAlertSink } from '../../../../src-main/core/monitor/sinks';
import { alertWords } from '../../../../src-main/core/monitor/words';
import type { Alert } from '../../../../src-main/core/monitor/types';
import { FakeClock } from '../../../helpers/fake-clock';
import { waitFor } from '../../../helpers/wait';

const alert: Alert = {
  id: 'alert-1',
  kind: 'needs-scan',
  urgent: true,
  teamId: 't1',
  teamLabel: 'Team one',
  agentIds: ['a1'],
  title: 'a1 was unlinked — a QR scan is needed',
  body: 'A person must scan.',
  at: Date.UTC(2024, 0, 10, 12, 0, 5),
  incidentId: 'inc-1',
};

let server: Server;
let base = '';
const received: Array<{ path: string; body: unknown }> = [];
const failuresLeft = new Map<string, number>();
/** One entry per request to /hang. */
const hung: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path === '/hang') return void hung.push(path); // never answers
      const left = failuresLeft.get(path) ?? 0;
      if (left > 0) {
        failuresLeft.set(path, left - 1);
        res.statusCode = 503;
        return res.end();
      }
      if (path === '/gone') {
        res.statusCode = 404;
        received.push({ path, body: null });
        return res.end();
      }
      received.push({ path, body: JSON.parse(data) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('alertWords', () => {
  it('urgency, kind and the team by its label (never its id), then the title; the body apart', () => {
    expect(alertWords(alert)).toEqual({
      headline: 'Urgent [needs-scan] Team one',
      title: 'a1 was unlinked — a QR scan is needed',
      body: 'A person must scan.',
      line: 'Urgent [needs-scan] Team one: a1 was unlinked — a QR scan is needed',
    });
    expect(alertWords({ ...alert, urgent: false, kind: 'recovered' }).headline).toBe('Resolved [recovered] Team one');
    expect(alertWords({ ...alert, urgent: false, kind: 'reconnecting' }).headline).toBe(
      'Warning [reconnecting] Team one',
    );
  });
});

/** Millisecond waits between attempts, so retries do not slow the test. */
const QUICK = { baseMs: 1, maxMs: 4, jitter: 0 };

describe('WebhookAlertSink', () => {
  it('POSTs {text, alert}', async () => {
    const ok = await new WebhookAlertSink(`${base}/hook`).send(alert);
    expect(ok).toBe(true);
    const got = received.find((r) => r.path === '/hook')!.body as { text: string; alert: Alert };
    expect(got.alert).toEqual(alert);
    expect(got.text).toBe(
      '🔴 Urgent [needs-scan] Team one: a1 was unlinked — a QR scan is needed\nA person must scan.',
    );
  });

  it('retries a bounded number of times on 5xx', async () => {
    failuresLeft.set('/flaky', 2);
    expect(await new WebhookAlertSink(`${base}/flaky`, { retries: 2, backoff: QUICK }).send(alert)).toBe(true);
    failuresLeft.set('/down', 5);
    expect(await new WebhookAlertSink(`${base}/down`, { retries: 2, backoff: QUICK }).send(alert)).toBe(false);
    expect(failuresLeft.get('/down')).toBe(2); // 3 attempts, no more
  });

  it('does not retry a 4xx, times out a hung endpoint, and never throws', async () => {
    const before = received.filter((r) => r.path === '/gone').length;
    await expect(new WebhookAlertSink(`${base}/gone`, { backoff: QUICK }).deliver(alert)).resolves.toBeUndefined();
    expect(received.filter((r) => r.path === '/gone').length - before).toBe(1);
    // A hung endpoint: each attempt is given up at its timeout (on the sink's clock), then retried once.
    const clock = new FakeClock();
    let settled = false;
    const delivery = new WebhookAlertSink(`${base}/hang`, {
      clock,
      timeoutMs: 5000,
      retries: 1,
      backoff: { baseMs: 1000, maxMs: 1000, jitter: 0 },
    })
      .deliver(alert)
      .finally(() => (settled = true));
    await waitFor(() => hung.length === 1, 5000, 'the first attempt');
    await clock.advance(4999);
    expect([hung.length, settled]).toEqual([1, false]);
    await clock.advance(1 + 1000); // the timeout, then the wait before the retry
    await waitFor(() => hung.length === 2, 5000, 'the retry');
    await clock.advance(4999);
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(delivery).resolves.toBeUndefined();
    expect(hung).toHaveLength(2);
    expect(clock.pending).toBe(0);
    await expect(new WebhookAlertSink('http://127.0.0.1:1/x', { retries: 0 }).deliver(alert)).resolves.toBeUndefined();
  });

  it('rejects a URL that is not http(s) at construction', () => {
    expect(() => new WebhookAlertSink('file:///etc/passwd')).toThrow(/http/);
    expect(() => new WebhookAlertSink('not a url')).toThrow(/http/);
  });
});
