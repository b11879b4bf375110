// Send limits per team: a sliding one-minute window and a monthly quota.
// ASSUMPTION A-RATE, A-QUOTA
import { DEFAULT_DIALECT, type Dialect } from './dialect';
import { rateWire, type RateFigures } from './dialect-wire';
import { EmulatorError } from './errors';
import type { Team } from './model';

const WINDOW_MS = 60_000;
export const DEFAULT_SENDS_PER_MINUTE = 60;
export const DEFAULT_MONTHLY_QUOTA = 100_000;

function monthOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

function prune(team: Team, now: number): void {
  let drop = 0;
  while (drop < team.sendTimes.length && team.sendTimes[drop]! <= now - WINDOW_MS) drop++;
  if (drop > 0) team.sendTimes.splice(0, drop);
}

export function sendsInWindow(team: Team, now: number): number {
  prune(team, now);
  return team.sendTimes.length;
}

export function monthSends(team: Team, now: number): number {
  const month = monthOf(now);
  if (team.month !== month) {
    team.month = month;
    team.monthSends = 0;
  }
  return team.monthSends;
}

/** Headers describing the window after the current call, written as the dialect writes them. */
export function rateHeaders(
  team: Team,
  now: number,
  dialect: Dialect = DEFAULT_DIALECT,
  retryAfterSec?: number,
): Record<string, string> {
  prune(team, now);
  const oldest = team.sendTimes[0];
  const resetMs = oldest === undefined ? now : oldest + WINDOW_MS;
  const figures: RateFigures = {
    limit: team.sendsPerMinute,
    remaining: Math.max(0, team.sendsPerMinute - team.sendTimes.length),
    resetMs,
  };
  if (retryAfterSec !== undefined) figures.retryAfterSec = retryAfterSec;
  return rateWire(dialect, figures, now);
}

/** Throws 429 / 402 when the send may not go out; otherwise records it. */
export function admitSend(team: Team, now: number, dialect: Dialect = DEFAULT_DIALECT): void {
  prune(team, now);
  if (team.sendTimes.length >= team.sendsPerMinute) {
    const oldest = team.sendTimes[0]!;
    const retryAfter = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
    throw new EmulatorError(
      429,
      'RATE_LIMITED',
      `send rate limit of ${team.sendsPerMinute} per minute exceeded`,
      rateHeaders(team, now, dialect, retryAfter),
    );
  }
  if (monthSends(team, now) >= team.monthlyQuota) {
    throw new EmulatorError(
      402,
      'QUOTA_EXCEEDED',
      `monthly quota of ${team.monthlyQuota} sends is used up`,
      rateHeaders(team, now, dialect),
    );
  }
  team.sendTimes.push(now);
  team.monthSends++;
}
