// The one hook: a component selects from the store handed down by StoreContext. Select a single
// value (or an action) per call; wrap a selector that derives an array or object in useShallow.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './index';

export const StoreContext = createContext<AppStore | null>(null);

export function useApp<T>(selector: (s: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('StoreContext is missing');
  return useStore(store, selector);
}
