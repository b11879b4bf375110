// What every slice of the renderer store shares: the slice type (how a slice reads and writes the
// one store), the injected clock and frame scheduling, and the keys things are filed under.
import type { Api } from '../../../src-shared/contract';
import { nextAnimationFrame } from './frame-batch';

/** The key of an agent in every per-agent record of the store. */
export const agentKey = (teamId: string, agentId: string): string => `${teamId}/${agentId}`;

/** Injected time and frame scheduling, so tests are deterministic. */
export interface StoreEnv {
  now(): number;
  /** Runs fn before the next frame is drawn (see frame-batch.ts). */
  nextFrame(fn: () => void): void;
  /** Runs fn after ms (a timer). */
  later(ms: number, fn: () => void): void;
}

export function defaultEnv(): StoreEnv {
  return { now: () => Date.now(), nextFrame: nextAnimationFrame, later: (ms, fn) => void setTimeout(fn, ms) };
}

/** The zustand `set`, narrowed to the part of the state a slice sees. */
type SetOf<S> = (partial: Partial<S> | ((s: S) => Partial<S>)) => void;
type GetOf<S> = () => S;

export interface SliceContext<S> {
  set: SetOf<S>;
  get: GetOf<S>;
  /** The contract's Api (the bridge), not zustand's store api. */
  api: Api;
  env: StoreEnv;
}

/**
 * A slice: its state and actions, built from a context typed to what it owns (S) plus what it reads
 * of the rest of the store (Reads, declared by shape, so no slice imports the assembled store).
 */
export type Slice<S, Reads = object> = (ctx: SliceContext<S & Reads>) => S;

let counter = 0;
/** A small unique id for renderer-side references (clientRef, notices). */
export function localId(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter.toString(36)}`;
}
