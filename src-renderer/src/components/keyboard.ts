// Keyboard helpers.
import { useEffect } from 'react';

/** Runs cb when Escape is pressed anywhere (while mounted). */
export function useEscape(cb: () => void, active = true): void {
  useEffect(() => {
    if (!active) return;
    const on = (e: KeyboardEvent) => {
      if (e.key === 'Escape') cb();
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [cb, active]);
}

/** Enter or Space: for elements that act like buttons but are not <button>. */
export function isActivation(e: { key: string }): boolean {
  return e.key === 'Enter' || e.key === ' ';
}
