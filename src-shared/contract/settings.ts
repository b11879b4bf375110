// The contract's settings: The app's settings, diagnostics and the demo.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { MessageNotificationsDTO } from './messages';
import type { TeamDTO } from './teams';

type ThemeDTO = 'system' | 'light' | 'dark';

export interface AlertRulesDTO {
  /** Seconds a reconnecting link may last before it alerts (0: at once). */
  reconnectGraceSec: number;
  /**
   * Seconds a drop within flapWindowMinutes of an earlier drop may last before it alerts (the larger
   * of this and reconnectGraceSec); shorter repeats count toward flapping.
   */
  repeatDropGraceSec: number;
  /** Minutes between reminders of a still-open incident (0: never). */
  realertMinutes: number;
  /** Drops within flapWindowMinutes that count as flapping. */
  flapCount: number;
  flapWindowMinutes: number;
}

export interface AppSettingsDTO {
  /** Read-only: this install's stable id, the default chat user_id. settings.update refuses it. */
  installId: string;
  startAtLogin: boolean;
  notifications: boolean;
  pollIntervalSec: number;
  /** Read-only here: the poll interval while pairing, reconnecting, after a drop, and of agents watched closely. */
  fastPollIntervalSec: number;
  /** Minutes a needs-scan/unreachable state lasts before it is urgent. */
  escalateAfterMin: number;
  /**
   * allowLegacySignature: accept deliveries signed only with the legacy header (no timestamp, so
   * replayable); always present in settings.get, optional in a patch (absent: unchanged).
   */
  tunnel: { port: number; forwardTo: string | null; allowLegacySignature?: boolean };
  alertRules: AlertRulesDTO;
  /** http(s) URL every alert is POSTed to as JSON; null sends none. */
  alertWebhookUrl: string | null;
  /** Alertmanager (base URL) that raised incidents are posted to, firing then resolved; null: none. */
  alertmanagerUrl: string | null;
  /** Port of the Prometheus /metrics endpoint on 127.0.0.1 (0: any free port); null: off. */
  metricsPort: number | null;
  theme: ThemeDTO;
  /** Notifications of new inbound messages (the agents muted are changed by messages.mute). */
  messageNotifications: MessageNotificationsDTO;
}

/** What settings.update accepts: every setting but the read-only ones; messageNotifications in part. */
export type AppSettingsPatchDTO = Partial<
  Omit<AppSettingsDTO, 'installId' | 'fastPollIntervalSec' | 'messageNotifications'> & {
    messageNotifications: Partial<Omit<MessageNotificationsDTO, 'muted'>>;
  }
>;

export interface DiagnosticsDTO {
  filename: string;
  /** JSON text, redacted: no keys, no secrets. */
  content: string;
}

export interface DemoDTO {
  team: TeamDTO;
  /** The local emulator's base URL. */
  baseUrl: string;
}
