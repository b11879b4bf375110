// The receiver's public exposure for the companion: one ExposureController (core/expose) over the
// tunnel's port, the ngrok authtoken in the keychain, and the agents chosen at expose time
// registered at the public URL through the companion's one registration path once the URL is up
// (app/usecases/webhooks.ts exposeAndRegister, as `listen --expose` does). Every change is reported as a view (status + registrations + authtoken hint).
import {
  ExposureController,
  ngrokAuthtokenHint,
  readNgrokAuthtoken,
  saveNgrokAuthtoken,
  type ExposeRequest,
  type ExposureStatus,
  type NgrokLoader,
} from '../../core/expose';
import type { Clock, Logger } from '../../core/ports';
import type { SecretStore } from '../../core/secrets';
import { exposeAndRegister, type HookRegistration } from '../usecases/webhooks';

export type ExposureRegistration = HookRegistration;

export interface ExposureView extends ExposureStatus {
  registrations: ExposureRegistration[];
  ngrokAuthtoken: { stored: boolean; hint: string | null };
}

export interface ExposureHostOptions {
  secrets: SecretStore;
  clock: Clock;
  logger: Logger;
  /** Starts the receiver if needed; its port. */
  port(): Promise<number>;
  /** The companion's registerWebhook (keeps the signing secret); resolves with the registered URL. */
  register(teamId: string, agentId: string, url: string): Promise<{ url: string }>;
  onChange(view: ExposureView): void;
  timeoutMs?: number;
  loadNgrok?: NgrokLoader;
  /** The keys and signing secrets no variable handed to a tunnel program may hold. */
  knownSecrets?(): Promise<readonly string[]>;
}

export type ExposeChoice = ({ kind: 'ngrok'; domain?: string } | { kind: 'command'; command: string }) & {
  register?: Array<{ teamId: string; agentId: string }>;
};

export class ExposureHost {
  private readonly controller: ExposureController;
  private registrations: ExposureRegistration[] = [];
  private authtoken: { stored: boolean; hint: string | null } = { stored: false, hint: null };
  private asked = false;
  /** The expose under way: an older one's registrations no longer show. */
  private current: object | null = null;

  constructor(private readonly o: ExposureHostOptions) {
    this.controller = new ExposureController({
      ngrokAuthtoken: () => readNgrokAuthtoken(o.secrets),
      clock: o.clock,
      logger: o.logger,
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.loadNgrok ? { loadNgrok: o.loadNgrok } : {}),
      ...(o.knownSecrets ? { knownSecrets: o.knownSecrets } : {}),
    });
    this.controller.on('status', () => this.changed());
  }

  view(): ExposureView {
    // The keychain is asked on first need (the tunnel screen), not when the app starts.
    if (!this.asked) {
      this.asked = true;
      void this.refreshAuthtoken();
    }
    return {
      ...this.controller.status(),
      registrations: this.registrations.map((r) => ({ ...r })),
      ngrokAuthtoken: { ...this.authtoken },
    };
  }

  /** Exposes the receiver (stopping the exposure before), then registers the chosen agents; resolves once that is done. */
  async expose(choice: ExposeChoice): Promise<ExposureView> {
    this.registrations = [];
    const port = await this.o.port();
    // The tunnel program gets this process's environment, less every variable holding a known key or secret.
    const req: ExposeRequest =
      choice.kind === 'command'
        ? { kind: 'command', command: choice.command }
        : { kind: 'ngrok', ...(choice.domain ? { domain: choice.domain } : {}) };
    const mine = {};
    this.current = mine;
    await exposeAndRegister({
      controller: this.controller,
      port,
      request: req,
      targets: choice.register ?? [],
      register: (t, url) => this.o.register(t.teamId, t.agentId, url),
      stillWanted: () => this.current === mine,
      onChange: (list) => {
        if (this.current !== mine) return;
        this.registrations = list;
        this.changed();
      },
    });
    if (choice.kind === 'ngrok') await this.refreshAuthtoken();
    return this.view();
  }

  async unexpose(): Promise<ExposureView> {
    await this.controller.stop();
    return this.view();
  }

  async setNgrokAuthtoken(token: string): Promise<{ hint: string }> {
    const r = await saveNgrokAuthtoken(this.o.secrets, token);
    this.authtoken = { stored: true, hint: r.hint };
    this.changed();
    return r;
  }

  async close(): Promise<void> {
    await this.controller.stop();
  }

  private async refreshAuthtoken(): Promise<void> {
    try {
      const hint = await ngrokAuthtokenHint(this.o.secrets);
      const next = { stored: hint !== null, hint };
      if (next.stored !== this.authtoken.stored || next.hint !== this.authtoken.hint) {
        this.authtoken = next;
        this.changed();
      }
    } catch {
      // The keychain did not answer: an ngrok start says why.
    }
  }

  private changed(): void {
    this.o.onChange({
      ...this.controller.status(),
      registrations: this.registrations.map((r) => ({ ...r })),
      ngrokAuthtoken: { ...this.authtoken },
    });
  }
}
