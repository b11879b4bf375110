// Desktop notifications: in Electron the app shows them (a setting); in a browser they need the
// page's permission, asked only when this button is pressed, and what the browser answered is said
// in words (granted, denied, default, unsupported).
import { useState } from 'react';
import { Switch } from '../../components/Switch';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { notificationCtor } from './browserNotifications';

type Answer = NotificationPermission | 'unsupported' | 'failed';

/** What the browser answered (or holds) about notifications, in words. */
const PERMISSION_WORDS: Record<Answer, string> = {
  granted: 'The browser answered “granted”: it shows desktop notifications while this page is open.',
  denied:
    'The browser answered “denied”: notifications are blocked for this page. Allow them in the browser’s site settings to get them.',
  default:
    'The browser answered “default”: no choice was made (the request was dismissed). Press the button to ask again.',
  unsupported: 'This browser cannot show desktop notifications (“unsupported”); alerts appear inside the page.',
  failed: 'The browser did not answer the request; alerts appear inside the page. Press the button to ask again.',
};

export function DesktopNotifications({
  inElectron = typeof window !== 'undefined' && !!window.api,
}: {
  inElectron?: boolean;
}) {
  const settings = useApp((s) => s.settings);
  const update = useApp((s) => s.updateSettings);
  const ctor = notificationCtor();
  const [permission, setPermission] = useState<Answer>(ctor ? ctor.permission : 'unsupported');
  /** True once the button was pressed: the answer is then said as such. */
  const [asked, setAsked] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const ask = async () => {
    if (!ctor) return;
    let answer: Answer;
    try {
      // Older browsers answer through a callback and return nothing: the property then holds it.
      answer = (await ctor.requestPermission()) ?? ctor.permission;
    } catch {
      answer = 'failed';
    }
    setPermission(answer);
    setAsked(true);
  };
  const canAsk = ctor !== null && (permission === 'default' || permission === 'failed');
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
      {!inElectron && (
        <>
          {(asked || permission !== 'default') && (
            <p role="status" className={`permission permission-${permission}`}>
              {PERMISSION_WORDS[permission]}
            </p>
          )}
          {canAsk && (
            <button type="button" onClick={() => void ask()}>
              Enable desktop notifications
            </button>
          )}
        </>
      )}
    </section>
  );
}
