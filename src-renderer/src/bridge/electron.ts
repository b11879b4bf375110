// The Electron bridge: the preload's window.api, already shaped like the contract's Api.
import type { Api } from '../../../src-shared/contract';

declare global {
  interface Window {
    api?: Api;
  }
}

export function electronBridge(): Api | null {
  return typeof window !== 'undefined' && window.api ? window.api : null;
}
