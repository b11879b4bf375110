// Theme: system / light / dark, applied at once as data-theme on <html> and saved in the app settings
// (settings.update); localStorage keeps a copy so the next start paints in the right theme at once.
import { useEffect, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { applyTheme, readTheme, THEME_PREFS, type ThemePref } from '../../components/theme';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

const WORDS: Record<ThemePref, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

export function ThemePicker() {
  const saved = useApp((s) => s.settings?.theme);
  const update = useApp((s) => s.updateSettings);
  const [pref, setPref] = useState<ThemePref>(() => saved ?? readTheme(window.localStorage));
  const [error, setError] = useState<ErrorDTO | null>(null);
  useEffect(() => {
    if (saved) setPref(saved);
  }, [saved]);
  return (
    <fieldset className="card">
      <legend>Theme</legend>
      {THEME_PREFS.map((p) => (
        <label key={p} className="radio">
          <input
            type="radio"
            name="theme"
            value={p}
            checked={pref === p}
            onChange={() => {
              setPref(p);
              applyTheme(p, document.documentElement, window.localStorage);
              void update({ theme: p }).then(setError);
            }}
          />{' '}
          {WORDS[p]}
        </label>
      ))}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </fieldset>
  );
}
