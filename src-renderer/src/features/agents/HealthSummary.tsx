// One line over the agents list: how many agents are connected, reconnecting, need a scan or are
// unreachable (and not checked yet, while any are), each with its glyph; counted from the same
// health the rows show. While the app cannot tell the health now (the main side does not answer:
// `stale`), no count is given: the rows read unknown, and so does the summary.
import type { AgentDTO, Health } from '../../../../src-shared/contract';
import { HEALTH_GLYPHS, STALE_WORDS } from '../../components/health';

const COUNTED: { health: Health; one: string; many: string; always: boolean }[] = [
  { health: 'connected', one: 'connected', many: 'connected', always: true },
  { health: 'reconnecting', one: 'reconnecting', many: 'reconnecting', always: true },
  { health: 'needs-scan', one: 'needs a scan', many: 'need a scan', always: true },
  { health: 'key-rejected', one: 'key rejected', many: 'key rejected', always: false },
  { health: 'not-found', one: 'not found', many: 'not found', always: false },
  { health: 'unreachable', one: 'unreachable', many: 'unreachable', always: true },
  { health: 'unknown', one: 'not checked yet', many: 'not checked yet', always: false },
];

function healthCounts(agents: readonly AgentDTO[]): Record<Health, number> {
  const counts: Record<Health, number> = {
    connected: 0,
    unknown: 0,
    reconnecting: 0,
    unreachable: 0,
    'not-found': 0,
    'key-rejected': 0,
    'needs-scan': 0,
  };
  for (const a of agents) counts[a.health.health]++;
  return counts;
}

export function HealthSummary({ agents, stale = false }: { agents: readonly AgentDTO[]; stale?: boolean }) {
  const counts = healthCounts(agents);
  if (stale) {
    return (
      <p className="health-summary">
        <span className="health-summary-total">{agents.length === 1 ? '1 agent' : `${agents.length} agents`}:</span>
        <span className="health-count health-count-unknown">
          <span aria-hidden="true">{HEALTH_GLYPHS.unknown}</span> health {STALE_WORDS.toLowerCase()} while the companion
          is not answering
        </span>
      </p>
    );
  }
  const items = COUNTED.filter((c) => c.always || counts[c.health] > 0);
  return (
    <p className="health-summary">
      <span className="health-summary-total">{agents.length === 1 ? '1 agent' : `${agents.length} agents`}:</span>
      {items.map((c, i) => {
        const n = counts[c.health];
        return (
          <span key={c.health} className={`health-count health-count-${c.health}${n === 0 ? ' zero' : ''}`}>
            <span aria-hidden="true">{HEALTH_GLYPHS[c.health]}</span> {n} {n === 1 ? c.one : c.many}
            {i < items.length - 1 && <span className="sr-only">,</span>}
          </span>
        );
      })}
    </p>
  );
}
