// App settings (settings.get/update) and each agent's channel switches (channel.updateSettings).
import type {
  AppSettingsDTO,
  AppSettingsPatchDTO,
  ChannelSettingsDTO,
  DiagnosticsDTO,
  ErrorDTO,
  Result,
} from '../../../src-shared/contract';
import { agentKey, type Slice } from './env';

interface ChannelView {
  /** What the service last replied; null until the first change (the service has no read). */
  value: ChannelSettingsDTO | null;
  pending: boolean;
  error: ErrorDTO | null;
}

export interface SettingsSlice {
  settings: AppSettingsDTO | null;
  settingsError: ErrorDTO | null;
  loadSettings(): Promise<ErrorDTO | null>;
  /** Settings changed elsewhere (another window or process): what the screens show follows. */
  applySettings(settings: AppSettingsDTO): void;
  updateSettings(patch: AppSettingsPatchDTO): Promise<ErrorDTO | null>;
  /** Mutes (or unmutes) the agent's new-message notifications. */
  muteMessages(teamId: string, agentId: string, muted: boolean): Promise<ErrorDTO | null>;
  channel: Record<string, ChannelView>;
  updateChannel(teamId: string, agentId: string, patch: Partial<ChannelSettingsDTO>): Promise<ErrorDTO | null>;
  exportDiagnostics(): Promise<Result<DiagnosticsDTO>>;
}

export const settingsSlice: Slice<SettingsSlice> = ({ set, get, api }) => ({
  settings: null,
  settingsError: null,
  loadSettings: async () => {
    const r = await api['settings.get']();
    if (!r.ok) {
      set({ settingsError: r.error });
      return r.error;
    }
    set({ settings: r.value, settingsError: null });
    return null;
  },
  applySettings: (settings) => set({ settings, settingsError: null }),
  updateSettings: async (patch) => {
    const r = await api['settings.update']({ patch });
    if (!r.ok) return r.error;
    set({ settings: r.value, settingsError: null });
    return null;
  },
  muteMessages: async (teamId, agentId, muted) => {
    const r = await api['messages.mute']({ teamId, agentId, muted });
    if (!r.ok) return r.error;
    set((s) => (s.settings ? { settings: { ...s.settings, messageNotifications: r.value } } : {}));
    return null;
  },
  exportDiagnostics: () => api['diagnostics.export'](),
  channel: {},
  updateChannel: async (teamId, agentId, patch) => {
    const key = agentKey(teamId, agentId);
    const before = get().channel[key] ?? { value: null, pending: false, error: null };
    set((s) => ({ channel: { ...s.channel, [key]: { ...before, pending: true, error: null } } }));
    const r = await api['channel.updateSettings']({ teamId, agentId, patch });
    set((s) => ({
      channel: {
        ...s.channel,
        [key]: r.ok ? { value: r.value, pending: false, error: null } : { ...before, pending: false, error: r.error },
      },
    }));
    return r.ok ? null : r.error;
  },
});
