// Theme preference (system / light / dark), kept in localStorage and applied as data-theme on <html>.
export type ThemePref = 'system' | 'light' | 'dark';
export const THEME_PREFS: readonly ThemePref[] = ['system', 'light', 'dark'];
const KEY = 'cc.theme';

export function readTheme(storage: Pick<Storage, 'getItem'> | undefined): ThemePref {
  const v = storage?.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export function applyTheme(pref: ThemePref, root: HTMLElement, storage?: Pick<Storage, 'setItem'>): void {
  root.setAttribute('data-theme', pref);
  storage?.setItem(KEY, pref);
}

/** Set once this browser's local theme was reconciled with the app settings (see followSettingsTheme). */
const SYNCED_KEY = 'cc.theme.synced';

type ThemeStore = {
  getState(): { settings: { theme: ThemePref } | null };
  subscribe(fn: (s: { settings: { theme: ThemePref } | null }) => void): () => void;
};

/**
 * Applies the theme saved in the app settings whenever it loads or changes (another window, the
 * CLI) and refreshes the localStorage copy. Once per browser, a choice made before the theme was a
 * setting (a local 'light'/'dark' while the settings still say 'system') is carried over with
 * `save` instead of being dropped. Returns the unsubscribe.
 */
export function followSettingsTheme(
  store: ThemeStore,
  root: HTMLElement,
  storage?: Pick<Storage, 'getItem' | 'setItem'>,
  save?: (theme: ThemePref) => void,
): () => void {
  let last: ThemePref | null = null;
  const sync = (s: { settings: { theme: ThemePref } | null }) => {
    const theme = s.settings?.theme;
    if (!theme || theme === last) return;
    const first = last === null;
    last = theme;
    if (first && storage && storage.getItem(SYNCED_KEY) === null) {
      storage.setItem(SYNCED_KEY, '1');
      const local = readTheme(storage);
      if (save && theme === 'system' && local !== 'system') {
        last = local;
        save(local);
        return;
      }
    }
    if (root.getAttribute('data-theme') !== theme) applyTheme(theme, root, storage);
    else storage?.setItem(KEY, theme);
  };
  sync(store.getState());
  return store.subscribe(sync);
}
