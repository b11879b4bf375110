// Settings: when a new inbound message notifies (a native notification on the desktop, an in-app
// notice in a browser): on/off, whether its text shows, and quiet hours. Agents are muted on their
// own pages. Unread counts change whatever is chosen here.
import { useState } from 'react';
import type { AppSettingsDTO, ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Switch } from '../../components/Switch';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { QuietHoursEditor } from '../alerts/QuietHoursForm';

export function MessageNotifications({ settings }: { settings: AppSettingsDTO }) {
  const update = useApp((s) => s.updateSettings);
  const agents = useApp((s) => s.agents);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const m = settings.messageNotifications;
  const mutedNames = m.muted.map((x) => agents[agentKey(x.teamId, x.agentId)]?.label ?? x.agentId);
  return (
    <section className="card" aria-labelledby="message-notifications-title">
      <h3 id="message-notifications-title">Message notifications</h3>
      <Switch
        request="settings.update"
        label="Notify of new messages"
        checked={m.enabled}
        hint="One notification per contact, replaced by the next; never for messages sent from here or for the conversation you have open."
        onChange={(v) => void update({ messageNotifications: { enabled: v } }).then(setError)}
      />
      <Switch
        request="settings.update"
        label="Show the message text"
        checked={m.showText}
        hint="Off: a notification says who wrote, never what. The text is never shown while the screen is locked (where the system tells the app)."
        onChange={(v) => void update({ messageNotifications: { showText: v } }).then(setError)}
      />
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
      <h4>Quiet hours for messages</h4>
      <QuietHoursEditor
        saved={m.quietHours}
        save={(q) => update({ messageNotifications: { quietHours: q } })}
        switchLabel="No message notifications during quiet hours"
        request="settings.update"
      />
      <p className="hint">
        {mutedNames.length === 0
          ? 'No agent is muted. Mute one on its page.'
          : `Muted (on their pages): ${mutedNames.join(', ')}.`}
      </p>
    </section>
  );
}
