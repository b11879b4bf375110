// Registering webhooks, the one way every shell does it: the app's "Register this receiver" and its
// public exposure, `listen --register-url` / `--expose`, and `webhook set`.
// - registerAgentWebhook: one agent's webhook set to a URL, its signing secret handed to the keepers
//   (keychain, memory, a file) before the registration counts; answered with the secret's hint only.
//   While it is in flight the receiver holds that agent's deliveries that fail verification (the
//   service may post with the new secret before its reply reaches us); once it succeeded it is
//   added to the registration history (URL, when, which command or screen; never the secret).
//   Registrations of one agent on one data folder (the history's) run one at a time, across
//   processes too (core/tunnel/registration-lock.ts): the secret kept and the history's newest entry
//   are always those of the service's last answer. The URL answered and kept is redacted
//   (core/tunnel/register.ts shownWebhookUrl).
//   Asking before taking over is the shells' part, with takeoverQuestion (registration-status.ts).
// - registerHooksAt: once a public URL exists, each chosen agent registered at hookUrl(URL, agent),
//   one after another, every outcome reported as it happens.
// - exposeAndRegister: the receiver exposed at a public URL (ngrok or a tunnel program), then
//   registerHooksAt with that URL.
// - registerDemoHooks: the demo emulator's agents pointed at the receiver when the demo starts (they
//   have no other receiver), but only where the emulator reports no webhook or one this install set:
//   a URL someone else registered is never replaced without asking.
import path from 'node:path';
import type { ServiceClient } from '../../core/api/service';
import type { ExposeRequest, ExposureController, ExposureStatus } from '../../core/expose';
// The two modules themselves, not the tunnel's index: every command that registers loads this.
import { hookUrl } from '../../core/tunnel/hook-url';
import { registerWebhook, shownWebhookUrl, type WebhookRegistration } from '../../core/tunnel/register';
import { registrationTurn } from '../../core/tunnel/registration-lock';
import type { RegistrationsInFlight } from '../../core/tunnel/in-flight';
import type { RegistrationLog, RegistrationTarget } from '../../core/tunnel/registration-history';

/** A signing secret shown safely: its last four characters. */
export function signingHint(secret: string): string {
  return secret.length > 8 ? `…${secret.slice(-4)}` : '…';
}

export interface AgentWebhookOptions {
  client: Pick<ServiceClient, 'setWebhook'>;
  agentId: string;
  url: string;
  /** Keep the secret, in order; a failure of one fails the registration (the service already points at url). */
  keepSecret(secret: string, registered: WebhookRegistration): Promise<void>;
  signal?: AbortSignal;
  /** The receiver's registrations under way: told when this one begins and ends. */
  inFlight?: Pick<RegistrationsInFlight, 'begin'>;
  /** Where a successful registration is recorded, and as what (every shell records it; null only in tests of the use case itself). */
  history: { store: RegistrationLog; teamId: string | null; source: string; target: RegistrationTarget } | null;
}

export interface AgentWebhook {
  registration: WebhookRegistration;
  secretHint: string;
  /** The registration history could not be read or written (the registration itself stands), or null. */
  historyProblem: string | null;
}

export function registerAgentWebhook(o: AgentWebhookOptions): Promise<AgentWebhook> {
  if (!o.history) return registerNow(o);
  return registrationTurn(path.dirname(o.history.store.file), o.agentId, () => registerNow(o), {
    ...(o.signal ? { signal: o.signal } : {}),
  });
}

async function registerNow(o: AgentWebhookOptions): Promise<AgentWebhook> {
  let secretHint = '';
  const end = o.inFlight?.begin(o.agentId);
  let registration: WebhookRegistration;
  try {
    registration = await registerWebhook({
      client: o.client,
      agentId: o.agentId,
      publicUrl: o.url,
      ...(o.signal ? { signal: o.signal } : {}),
      saveSecret: async (secret, registered) => {
        secretHint = signingHint(secret);
        await o.keepSecret(secret, registered);
      },
    });
  } finally {
    end?.();
  }
  let historyProblem: string | null = null;
  if (o.history) {
    const h = o.history;
    try {
      historyProblem = await h.store.append({
        teamId: h.teamId,
        agentId: o.agentId,
        url: registration.url,
        source: h.source,
        target: h.target,
      });
    } catch (e) {
      historyProblem = `the registration was not added to the history: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return { registration, secretHint, historyProblem };
}

export interface HookTarget {
  teamId: string;
  agentId: string;
}

export interface HookRegistration extends HookTarget {
  url: string;
  state: 'registering' | 'registered' | 'failed';
  error: string | null;
}

export interface RegisterHooksOptions {
  /** Registers one agent's webhook at url; answers the URL the service registered. */
  register(target: HookTarget, url: string): Promise<{ url: string }>;
  /** Every change of the list (a copy). */
  onChange?(list: HookRegistration[]): void;
  /** Asked before each agent: false stops (a newer exposure took over). */
  stillWanted?(): boolean;
  /** Stop at the first failure and throw it (the command line); default: note it and go on (the app). */
  stopOnFailure?: boolean;
}

const copy = (list: HookRegistration[]) => list.map((r) => ({ ...r }));

export async function registerHooksAt(
  base: string,
  targets: HookTarget[],
  o: RegisterHooksOptions,
): Promise<HookRegistration[]> {
  const list: HookRegistration[] = targets.map((t) => ({
    teamId: t.teamId,
    agentId: t.agentId,
    url: hookUrl(base, t.agentId),
    state: 'registering',
    error: null,
  }));
  o.onChange?.(copy(list));
  for (const r of list) {
    if (o.stillWanted && !o.stillWanted()) break;
    try {
      r.url = (await o.register({ teamId: r.teamId, agentId: r.agentId }, r.url)).url;
      r.state = 'registered';
    } catch (e) {
      r.state = 'failed';
      r.error = e instanceof Error ? e.message : String(e);
      o.onChange?.(copy(list));
      if (o.stopOnFailure) throw e;
      continue;
    }
    o.onChange?.(copy(list));
  }
  return copy(list);
}

export interface ExposeAndRegisterOptions extends RegisterHooksOptions {
  controller: Pick<ExposureController, 'start' | 'status'>;
  port: number;
  request: ExposeRequest;
  targets: HookTarget[];
  /** The public URL is up (before any registration). */
  onUp?(url: string): void;
}

/** Exposes the receiver on port; once its public URL is up, registers the targets there. */
export async function exposeAndRegister(
  o: ExposeAndRegisterOptions,
): Promise<{ status: ExposureStatus; registrations: HookRegistration[] }> {
  const status = await o.controller.start(o.port, o.request);
  const url = status.url;
  if (status.state !== 'up' || url === null) return { status, registrations: [] };
  o.onUp?.(url);
  const registrations =
    o.targets.length > 0
      ? await registerHooksAt(url, o.targets, {
          ...o,
          // A newer exposure (or a stop) took over: its URL is not this one.
          stillWanted: () =>
            (o.stillWanted?.() ?? true) && o.controller.status().state === 'up' && o.controller.status().url === url,
        })
      : [];
  return { status, registrations };
}

/** What became of one demo agent's webhook at the demo's start. */
export type DemoHookOutcome =
  | { agentId: string; state: 'registered'; url: string }
  | { agentId: string; state: 'foreign'; url: string }
  | { agentId: string; state: 'failed'; url: string; error: string };

export interface DemoHooksOptions {
  /** The receiver's local address (listening). */
  receiver: string;
  agentIds: readonly string[];
  /** The webhook URL the emulator reports for each agent now (absent: none). */
  current: ReadonlyMap<string, string>;
  /** The URLs this install registered for the agent (its registration history). */
  ours(agentId: string): Promise<readonly string[]>;
  /** Registers one agent's webhook at url through registerAgentWebhook. */
  register(agentId: string, url: string): Promise<unknown>;
}

/**
 * Points each demo agent's webhook at the receiver's hook URL when the emulator reports none, or a
 * URL this install set (the receiver's own, or one in its history); any other URL is left alone.
 */
export async function registerDemoHooks(o: DemoHooksOptions): Promise<DemoHookOutcome[]> {
  const out: DemoHookOutcome[] = [];
  for (const agentId of o.agentIds) {
    const url = hookUrl(o.receiver, agentId);
    const now = o.current.get(agentId);
    // The history keeps URLs as shown (redacted): the emulator's is compared as shown too.
    if (now !== undefined && now !== url && !(await o.ours(agentId)).includes(shownWebhookUrl(now, agentId))) {
      out.push({ agentId, state: 'foreign', url: now });
      continue;
    }
    try {
      await o.register(agentId, url);
      out.push({ agentId, state: 'registered', url });
    } catch (e) {
      out.push({ agentId, state: 'failed', url, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
