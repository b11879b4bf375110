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
