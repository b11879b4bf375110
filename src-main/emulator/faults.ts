// Injected faults on service calls: the next `count` matching calls (or, with `probability`, each
// matching call by chance, for `durationMs`) answer 500 / 503 / 429, answer slowly, or are reset.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock, Random } from '../core/ports';

export const faultInputSchema = z.strictObject({
  kind: z.enum(['500', '503', '429', 'slow', 'reset']),
  count: z.number().int().positive().optional(),
  probability: z.number().min(0).max(1).optional(),
  durationMs: z.number().positive().optional(),
  pathPrefix: z.string().startsWith('/').optional(),
  delayMs: z.number().int().nonnegative().max(600_000).optional(),
  /** Extra: Retry-After seconds for kind 429 (default 1). */
  retryAfterSeconds: z.number().int().nonnegative().optional(),
});
export type FaultInput = z.infer<typeof faultInputSchema>;

export interface Fault {
  id: string;
  kind: FaultInput['kind'];
  remaining: number | null;
  probability: number | null;
  until: number | null;
  pathPrefix: string;
  delayMs: number;
  retryAfterSeconds: number;
  hits: number;
}

export class Faults {
  private list: Fault[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  add(input: FaultInput): Fault {
    const unbounded = input.probability !== undefined || input.durationMs !== undefined;
    const fault: Fault = {
      id: `fault_${randomBytes(6).toString('hex')}`,
      kind: input.kind,
      remaining: input.count ?? (unbounded ? null : 1),
      probability: input.probability ?? null,
      until: input.durationMs !== undefined ? this.clock.now() + input.durationMs : null,
      pathPrefix: input.pathPrefix ?? '/api/',
      delayMs: input.delayMs ?? 2000,
      retryAfterSeconds: input.retryAfterSeconds ?? 1,
      hits: 0,
    };
    this.list.push(fault);
    return fault;
  }

  clear(): void {
    this.list = [];
  }

  active(): Fault[] {
    this.expire();
    return this.list.map((f) => ({ ...f }));
  }

  /** The fault this call triggers, if any (consumes one of its count). */
  take(pathname: string): Fault | null {
    this.expire();
    for (const fault of this.list) {
      if (!pathname.startsWith(fault.pathPrefix)) continue;
      if (fault.probability !== null && !(this.random() < fault.probability)) continue;
      fault.hits++;
      if (fault.remaining !== null) fault.remaining--;
      this.expire();
      return fault;
    }
    return null;
  }

  private expire(): void {
    const now = this.clock.now();
    this.list = this.list.filter(
      (f) => (f.remaining === null || f.remaining > 0) && (f.until === null || now < f.until),
    );
  }
}
