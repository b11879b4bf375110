// Session statuses as the service reports them, for the monitor's tests.
import type { SessionStatus } from '../../src-main/core/api/types';

export const CONNECTED: SessionStatus = {
  connected: true,
  linked: true,
  state: 'connected',
  needsScan: false,
  phone: '15550100001',
  qr: null,
};

export const UNLINKED: SessionStatus = {
  connected: false,
  linked: false,
  state: 'unlinked',
  needsScan: true,
  phone: null,
  qr: null,
};
