// One exposure at a time, as a status the shells show: off → starting → up (with its URL) or failed
// (with why and what to do) → stopped. Starting again stops the one before. The status keeps the
// last URL once stopped or lost, so a shell can say where the service still sends deliveries.
import { Emitter, type Unsubscribe } from '../events';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { startCommandExposure } from './command';
import { ExposeError, LOCAL_KEEPS_WORKING, type ExposeErrorCode } from './errors';
import { startNgrokExposure, type NgrokLoader } from './ngrok';
import type { ExposeKind, Exposure } from './types';

type ExposureState = 'off' | 'starting' | 'up' | 'failed' | 'stopped';

export type ExposeRequest =
  | { kind: 'ngrok'; domain?: string }
  /** `command` holds {port}; `env` is the program's environment (default: this process's). */
  | { kind: 'command'; command: string; env?: NodeJS.ProcessEnv };

interface ExposureFailure {
  code: ExposeErrorCode;
  message: string;
  hint: string;
}

export interface ExposureStatus {
  state: ExposureState;
  kind: ExposeKind | null;
  /** The public base URL while up; the last one once stopped or lost; null before any. */
  url: string | null;
  /** ms epoch of the last change. */
  since: number;
  /** Set when failed. */
  error: ExposureFailure | null;
}

export interface ExposureControllerOptions {
  /** The ngrok authtoken (from the keychain); throws an ExposeError when there is none. */
  ngrokAuthtoken(): Promise<string>;
  /**
   * The other keys and secrets this process knows (API keys, signing secrets): no variable holding
   * one, nor the ngrok authtoken, reaches a tunnel program, whatever its name.
   */
  knownSecrets?(): Promise<readonly string[]>;
  clock?: Clock;
  logger?: Logger;
  timeoutMs?: number;
  /** Replaces the @ngrok/ngrok module (tests). */
  loadNgrok?: NgrokLoader;
}

function failureOf(e: unknown): ExposureFailure {
  const err =
    e instanceof ExposeError
      ? e
      : new ExposeError(
          'failed',
          `the exposure failed: ${e instanceof Error ? e.message : String(e)}`,
          LOCAL_KEEPS_WORKING,
        );
  return { code: err.code, message: err.message, hint: err.hint };
}

export class ExposureController {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly events: Emitter<{ status: ExposureStatus }>;
  private current: ExposureStatus;
  private running: { abort: AbortController; exposure: Exposure | null; done: Promise<unknown> } | null = null;
  private generation = 0;

  constructor(private readonly o: ExposureControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.logger = o.logger ?? silentLogger;
    this.events = new Emitter((err) =>
      this.logger.warn('exposure: listener failed', { error: err instanceof Error ? err.message : String(err) }),
    );
    this.current = { state: 'off', kind: null, url: null, since: this.clock.now(), error: null };
  }

  status(): ExposureStatus {
    return { ...this.current };
  }

  on(event: 'status', fn: (s: ExposureStatus) => void): Unsubscribe {
    return this.events.on(event, fn);
  }

  /** Exposes the receiver on `port`; resolves once it is up or has failed (never rejects). */
  async start(port: number, req: ExposeRequest): Promise<ExposureStatus> {
    await this.halt();
    const gen = ++this.generation;
    const abort = new AbortController();
    this.set({ state: 'starting', kind: req.kind, url: null, error: null });
    const opening = this.open(port, req, abort.signal);
    const slot: { abort: AbortController; exposure: Exposure | null; done: Promise<unknown> } = {
      abort,
      exposure: null,
      done: opening.catch(() => undefined),
    };
    this.running = slot;
    try {
      const exposure = await opening;
      if (gen !== this.generation) {
        await exposure.stop();
        return this.status();
      }
      slot.exposure = exposure;
      this.set({ state: 'up', kind: req.kind, url: exposure.url, error: null });
      void exposure.lost.then((why) => {
        if (gen !== this.generation) return;
        this.running = null;
        this.logger.warn('exposure: lost', { kind: req.kind });
        this.set({ state: 'failed', kind: req.kind, url: exposure.url, error: failureOf(why) });
      });
    } catch (e) {
      if (gen === this.generation) {
        this.running = null;
        this.set({ state: 'failed', kind: req.kind, url: null, error: failureOf(e) });
      }
    }
    return this.status();
  }

  /** Stops the exposure (starting or up); the status keeps its last URL. */
  async stop(): Promise<ExposureStatus> {
    const was = this.current;
    const stopped = await this.halt();
    if (stopped) this.set({ state: 'stopped', kind: was.kind, url: was.url, error: null });
    return this.status();
  }

  private async halt(): Promise<boolean> {
    const r = this.running;
    if (!r) return false;
    this.running = null;
    this.generation++;
    r.abort.abort(new ExposeError('failed', 'the exposure was stopped', ''));
    await r.exposure?.stop();
    await r.done;
    return true;
  }

  private async open(port: number, req: ExposeRequest, signal: AbortSignal): Promise<Exposure> {
    const timeoutMs = this.o.timeoutMs;
    if (req.kind === 'command') {
      const secrets = [...((await this.o.knownSecrets?.()) ?? [])];
      const authtoken = await this.o.ngrokAuthtoken().catch(() => null);
      if (authtoken !== null) secrets.push(authtoken);
      if (signal.aborted) throw signal.reason;
      return startCommandExposure({
        command: req.command,
        port,
        signal,
        secrets,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(req.env ? { env: req.env } : {}),
      });
    }
    const authtoken = await this.o.ngrokAuthtoken();
    if (signal.aborted) throw signal.reason;
    return startNgrokExposure({
      port,
      authtoken,
      signal,
      ...(req.domain ? { domain: req.domain } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(this.o.loadNgrok ? { load: this.o.loadNgrok } : {}),
    });
  }

  private set(s: Omit<ExposureStatus, 'since'>): void {
    this.current = { ...s, since: this.clock.now() };
    this.events.emit('status', this.status());
  }
}
