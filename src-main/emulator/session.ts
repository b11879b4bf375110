// The channel-link state machine. Time-driven moves (QR rotation, pairing expiry, end of a drop,
// flaky drops) are derived from the clock when an agent is read, so no timer runs per agent and
// 1,000 polled agents cost a map lookup each.
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Clock } from '../core/ports';
import { conflict } from './errors';
import type { Agent } from './model';
import type { WireSession } from './wire';

export type ChannelState = 'unlinked' | 'pairing' | 'connected' | 'reconnecting';

export interface SessionConfig {
  clock: Clock;
  qrRotateMs: number;
  pairingExpiryMs: number;
}

const QR_PREFIX = 'emulator-pair:';

export class Sessions {
  constructor(private readonly cfg: SessionConfig) {}

  /** Applies the moves that time has made since the agent was last read. */
  refresh(agent: Agent): void {
    const now = this.cfg.clock.now();
    const link = agent.link;
    if (link.kind === 'pairing') {
      if (now >= link.startedAt + this.cfg.pairingExpiryMs) {
        // ASSUMPTION A-PAIRING: pairing expires → unlinked.
        agent.link = { kind: 'unlinked' };
        return;
      }
      const index = Math.floor((now - link.startedAt) / this.cfg.qrRotateMs);
      if (index !== link.qrIndex) {
        link.qrIndex = index;
        link.token = newToken();
        link.qr = null;
      }
    } else if (link.kind === 'linked' && link.downUntil !== null && now >= link.downUntil) {
      link.connectedSince = link.downUntil;
      link.downUntil = null;
    }
  }

  state(agent: Agent): ChannelState {
    this.refresh(agent);
    const link = agent.link;
    if (link.kind === 'unlinked') return 'unlinked';
    if (link.kind === 'pairing') return 'pairing';
    if (link.downUntil !== null) return 'reconnecting';
    if (agent.flaky) {
      const every = agent.flaky.everySeconds * 1000;
      const down = Math.min(agent.flaky.downSeconds * 1000, every);
      const phase = (this.cfg.clock.now() - link.connectedSince) % every;
      if (phase >= every - down) return 'reconnecting';
    }
    return 'connected';
  }

  /** The session status object (A-PAIRING, A-UNLINKED, A-RECONNECTING). The QR image is made once per rotation. */
  async status(agent: Agent): Promise<WireSession> {
    const state = this.state(agent);
    const link = agent.link;
    switch (state) {
      case 'unlinked':
        // ASSUMPTION A-UNLINKED
        return { state, connected: false, linked: false, needsScan: true, qr: null, phone: null, live: false };
      case 'pairing': {
        if (link.kind !== 'pairing') throw new Error('unreachable');
        if (!link.qr)
          link.qr = QRCode.toDataURL(`${QR_PREFIX}${link.token}`, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
        const qr = await link.qr;
        // ASSUMPTION A-PAIRING
        return { state, connected: false, linked: false, needsScan: true, qr, phone: null, live: false };
      }
      case 'connected':
        return { state, connected: true, linked: true, needsScan: false, qr: null, phone: phoneOf(agent), live: true };
      case 'reconnecting':
        // ASSUMPTION A-RECONNECTING
        return {
          state,
          connected: false,
          linked: true,
          needsScan: false,
          qr: null,
          phone: phoneOf(agent),
          live: false,
        };
    }
  }

  /** POST session: unlinked → pairing; anything else unchanged. */
  startPairing(agent: Agent): void {
    if (this.state(agent) !== 'unlinked') return;
    agent.link = { kind: 'pairing', startedAt: this.cfg.clock.now(), qrIndex: 0, token: newToken(), qr: null };
  }

  /** The text the current QR encodes, or null when not pairing. */
  pairingText(agent: Agent): string | null {
    this.refresh(agent);
    return agent.link.kind === 'pairing' ? `${QR_PREFIX}${agent.link.token}` : null;
  }

  /** A phone scans the QR. When `token` is given it must be the current QR (text or token). */
  scan(agent: Agent, phone: string, token?: string): void {
    this.refresh(agent);
    const link = agent.link;
    if (link.kind !== 'pairing')
      throw conflict('NOT_PAIRING', `agent ${agent.id} is not pairing; POST .../whatsapp/session first`);
    if (token !== undefined && token !== link.token && token !== `${QR_PREFIX}${link.token}`)
      throw conflict('QR_EXPIRED', 'the scanned QR code is not the current one');
    this.link(agent, phone);
  }

  link(agent: Agent, phone: string): void {
    agent.link = { kind: 'linked', phone, connectedSince: this.cfg.clock.now(), downUntil: null };
  }

  /** connected → reconnecting for `seconds` (Infinity: until recover). */
  drop(agent: Agent, seconds: number): void {
    const state = this.state(agent);
    const link = agent.link;
    if (link.kind !== 'linked')
      throw conflict('NOT_LINKED', `agent ${agent.id} is ${state}; only a linked number can drop`);
    link.downUntil = this.cfg.clock.now() + seconds * 1000;
  }

  recover(agent: Agent): void {
    this.refresh(agent);
    const link = agent.link;
    if (link.kind !== 'linked') throw conflict('NOT_LINKED', `agent ${agent.id} is not linked`);
    link.downUntil = null;
    link.connectedSince = this.cfg.clock.now();
  }

  unlink(agent: Agent): void {
    agent.link = { kind: 'unlinked' };
  }
}

function phoneOf(agent: Agent): string | null {
  return agent.link.kind === 'linked' ? agent.link.phone : null;
}

function newToken(): string {
  return randomBytes(18).toString('base64url');
}
