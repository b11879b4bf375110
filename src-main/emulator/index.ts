// The local stand-in for the service (docs/service-api.md, filled in by docs/service-assumptions.md):
// the service API under /api/v1, the control surface under /_emulator, and a second origin that
// serves short-lived media blobs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock, type Random } from '../core/ports';
import { createControl, type EmulatorControl } from './control';
import { controlRoutes, handleControl } from './control-routes';
import { Deliveries } from './deliveries';
import { Faults } from './faults';
import { BlobStore } from './media';
import { World } from './model';
import { parseSeed, type EmulatorSeed } from './seed';
import { handleService, type ServiceCounters } from './service';
import { Sessions } from './session';
import { sendError } from './http';
import { EmulatorError } from './errors';
import { dialectListSchema } from './dialect';
import { restoreWorld, WorldFile } from './world-file';

export { defaultSeed, loadSeedFile } from './seed';
export type { EmulatorSeed } from './seed';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  clock?: Clock;
  seed?: EmulatorSeed;
  deliveryTimeoutMs?: number;
  deliveryBackoffMs?: number[];
  qrRotateMs?: number;
  pairingExpiryMs?: number;
  /** Extra: randomness for probabilistic faults (default Math.random). */
  random?: Random;
  /** Extra: port of the media origin (default 0). */
  mediaPort?: number;
  /** Dialect names every team speaks unless it or its agent names others (dialect.ts). */
  dialect?: string | string[];
  /**
   * A file that keeps the agents' session states (world-file.ts): read at start over the seed,
   * written after every change, so an emulator started again on it continues the same world.
   */
  stateFile?: string;
  /** The state file could not be read or written (the emulator runs on). */
  onStateError?: (err: Error) => void;
}

export interface Emulator {
  baseUrl: string;
  controlUrl: string;
  mediaOrigin: string;
  control: EmulatorControl;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const clock = opts.clock ?? systemClock;
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ? parseSeed(opts.seed) : undefined;
  const parsedDialect = dialectListSchema.safeParse(opts.dialect ?? []);
  if (!parsedDialect.success) throw new Error(parsedDialect.error.issues[0]?.message ?? 'invalid dialect');
  const defaultDialect = parsedDialect.data;
  const world = new World();
  const sessions = new Sessions({
    clock,
    qrRotateMs: opts.qrRotateMs ?? 20_000,
    pairingExpiryMs: opts.pairingExpiryMs ?? 120_000,
  });
  const faults = new Faults(clock, opts.random ?? Math.random);
  const blobs = new BlobStore(clock);
  const skew = { seconds: 0 };
  const counters: ServiceCounters & { inbound: number } = { serviceRequests: 0, sends: 0, chats: 0, inbound: 0 };
  const streams = new Set<() => void>();
  const stop = new AbortController();
  const deliveries = new Deliveries({
    clock,
    timeoutMs: opts.deliveryTimeoutMs ?? 10_000,
    backoffMs: opts.deliveryBackoffMs ?? [1000, 2000, 4000, 8000],
    secretOf: (agentId) => world.agents.get(agentId)?.webhook?.secret ?? null,
    skewSeconds: () => skew.seconds,
  });
  let baseUrl = '';
  let mediaOrigin = '';
  const control = createControl({
    world,
    sessions,
    faults,
    blobs,
    deliveries,
    clock,
    counters,
    streamsCount: () => streams.size,
    skew,
    seed,
    baseUrl: () => baseUrl,
  });
  const routes = controlRoutes(control);
  const onStateError = opts.onStateError ?? (() => undefined);
  if (opts.stateFile) await restoreWorld(world, opts.stateFile, onStateError);
  const worldFile = opts.stateFile ? new WorldFile(world, opts.stateFile, onStateError) : null;

  const main = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    // Anything but a read may change an agent's session (pairing, scan, drop, reset…): kept.
    if (worldFile && req.method !== 'GET' && req.method !== 'HEAD') res.once('finish', () => worldFile.save());
    if (path === '/_emulator' || path.startsWith('/_emulator/')) {
      void handleControl(req, res, routes);
    } else if (path.startsWith('/api/')) {
      void handleService(req, res, {
        world,
        sessions,
        faults,
        blobs,
        clock,
        counters,
        streams,
        stop: stop.signal,
        mediaOrigin: () => mediaOrigin,
        defaultDialect,
        onSent: (m) => control.sent(m),
        registered: (agentId) => control.registered(agentId),
      });
    } else {
      sendError(res, new EmulatorError(404, 'NOT_FOUND', 'no such endpoint'), { 'x-ratelimit-limit': '60' });
    }
  });
  const media = createServer((req, res) => blobs.handle(req, res));

  const mainPort = await listen(main, opts.port ?? 0, host);
  let mediaPort: number;
  try {
    mediaPort = await listen(media, opts.mediaPort ?? 0, host);
  } catch (err) {
    await closeServer(main);
    throw err;
  }
  baseUrl = `http://${urlHost(host)}:${mainPort}`;
  mediaOrigin = `http://${urlHost(host)}:${mediaPort}`;

  let closing: Promise<void> | null = null;
  return {
    baseUrl,
    controlUrl: `${baseUrl}/_emulator`,
    mediaOrigin,
    control,
    close() {
      closing ??= (async () => {
        faults.clear();
        stop.abort(new Error('emulator closed'));
        for (const stopStream of [...streams]) stopStream();
        streams.clear();
        await deliveries.close();
        await Promise.all([closeServer(main), closeServer(media)]);
        if (worldFile) {
          worldFile.save();
          await worldFile.flush();
        }
      })();
      return closing;
    },
  };
}
