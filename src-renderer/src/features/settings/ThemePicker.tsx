// Theme: system / light / dark, applied at once as data-theme on <html>.
import { useState } from 'react';
import { applyTheme, readTheme, THEME_PREFS, type ThemePref } from '../../components/theme';

const WORDS: Record<ThemePref, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

export function ThemePicker() {
  const [pref, setPref] = useState<ThemePref>(() => readTheme(window.localStorage));
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
            }}
          />{' '}
          {WORDS[p]}
        </label>
      ))}
    </fieldset>
  );
}
