// What the member's role on a team's hub allows (src-shared/roles.ts, the table the hub enforces). A control
// whose request the role does not allow stays in view, disabled, and says why (aria-describedby and title);
// without a hub (this computer's companion) everything is allowed. The role is read again (hub.status) when the
// hub says it changed (the `hub.role` event) and after a refusal by role, so the controls follow without a reload.
import { useId, type ReactNode } from 'react';
import type { HubConnectionDTO, RequestName } from '../../../src-shared/contract';
import { isRole, roleAllows, roleRefusal } from '../../../src-shared/roles';
import { useApp } from '../store/react';

export interface Allowed {
  allowed: boolean;
  /** Why not, in the member's words ("Your role (viewer) can't send messages — ask a hub admin …"); null when allowed. */
  reason: string | null;
}

const YES: Allowed = { allowed: true, reason: null };

/** What `role` allows of `request`; null: not connected to a hub. An unknown role is left to the hub to judge. */
function allowedFor(role: string | null, request: RequestName): Allowed {
  if (role === null || !isRole(role) || roleAllows(role, request)) return YES;
  return { allowed: false, reason: roleRefusal(role, request) };
}

/** The team hub this window works through while connected (hub.status), or null: this computer's companion. */
export function useConnectedHub(): HubConnectionDTO | null {
  const hub = useApp((s) => s.hub);
  return hub !== null && hub.member !== null ? hub : null;
}

/** Whether the member's role on the hub this window works through allows `request`. */
export function useAllowed(request: RequestName): Allowed {
  const role = useApp((s) => (s.hub && s.hub.member !== null ? s.hub.role : null));
  return allowedFor(role, request);
}

/** An action control's gate: `disabled` when not allowed, `props` for the control, and the reason to render once near it. */
export interface Gate extends Allowed {
  /** aria-describedby (the reason's id) and title (the reason), when not allowed. */
  props: { 'aria-describedby'?: string; title?: string };
  /** The control's own aria-describedby ids with the reason's. */
  describedBy(...ids: Array<string | false | null | undefined>): string | undefined;
  /** The reason as a line of text under the control; null when allowed. */
  note: ReactNode;
  /** The reason for screen readers only (a row's button whose section shows the note once); null when allowed. */
  hiddenNote: ReactNode;
}

/**
 * useAllowed with what a control needs to say it: its props point at the reason, rendered as `note` (visible)
 * or `hiddenNote` (one of the two).
 */
export function useGate(request: RequestName): Gate {
  const a = useAllowed(request);
  const id = useId();
  const describedBy = (...ids: Array<string | false | null | undefined>) =>
    [...ids, a.allowed ? null : id].filter(Boolean).join(' ') || undefined;
  if (a.allowed) return { ...a, props: {}, describedBy, note: null, hiddenNote: null };
  return {
    ...a,
    props: { 'aria-describedby': id, title: a.reason ?? undefined },
    describedBy,
    note: (
      <p className="hint role-note" id={id} data-testid="role-note">
        {a.reason}
      </p>
    ),
    hiddenNote: (
      <span className="sr-only" id={id}>
        {a.reason}
      </span>
    ),
  };
}
