// Desktop notifications: in Electron the app shows them (a setting); in a browser they need the
// page's permission, asked only when this button is pressed.
import { useState } from 'react';
import { Switch } from '../../components/Switch';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { notificationCtor } from './browserNotifications';

export function DesktopNotifications({ inElectron = typeof window !== 'undefined' && !!window.api }: { inElectron?: boolean }) {
  const settings = useApp((s) => s.settings);
  const update = useApp((s) => s.updateSettings);
  const ctor = notificationCtor();
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(ctor ? ctor.permission : 'unsupported');
  const [error, setError] = useState<ErrorDTO | null>(null);
  return (
    <section className="card" aria-labelledby="desk-title">
      <h3 id="desk-title">Desktop notifications</h3>
      {settings && (
        <Switch
          label="Show desktop notifications for new incidents"
          checked={settings.notifications}
          onChange={(v) => void update({ notifications: v }).then(setError)}
        />
      )}
      {error && <ErrorNotice error={error} />}
      {!inElectron &&
        (permission === 'unsupported' ? (
          <p className="muted">This browser cannot show desktop notifications; alerts appear inside the page.</p>
        ) : permission === 'granted' ? (
          <p>This browser will show desktop notifications while this page is open.</p>
        ) : permission === 'denied' ? (
          <p>Notifications are blocked for this page. Allow them in the browser's site settings to get them.</p>
        ) : (
          <button type="button" onClick={() => void ctor!.requestPermission().then(setPermission)}>
            Enable desktop notifications
          </button>
        ))}
    </section>
  );
}
