// Hook for the chat/console/tunnel screens: selects from the one root store (which includes SlicesB).
import { useContext } from 'react';
import { useStore, type StoreApi } from 'zustand';
import { StoreContext } from '../react';
import type { SlicesB } from '../slices-b';

export function useB<T>(selector: (s: SlicesB) => T): T {
  const store = useContext(StoreContext) as unknown as StoreApi<SlicesB> | null;
  if (!store) throw new Error('StoreContext is missing');
  return useStore(store, selector);
}
