// The calm side navigation: sections, the open-alert count, the worst health in words (short
// enough to fit the sidebar at any width, with what it means below it). While the main side does
// not answer, neither is known: the count reads "?" (", open count unknown") and the health Unknown.
// While alerts are snoozed, Alerts says so ("snoozed", until when in its tooltip and to screen readers).
import { useApp } from '../store/react';
import { countOpen } from '../store/alerts';
import { selectWorst } from '../store/agents';
import { isStale } from '../store/link';
import { sectionOf, type Route } from '../router/routes';
import { formatUntil, isSnoozed } from '../features/alerts/quietHours';
import { HealthBadge } from './HealthBadge';
import { useNow } from './TimeAgo';
import { HEALTH_HINTS } from './health';

const ITEMS = [
  { section: 'agents', href: '#/', label: 'Agents' },
  { section: 'alerts', href: '#/alerts', label: 'Alerts' },
  { section: 'messages', href: '#/messages', label: 'Messages' },
  { section: 'console', href: '#/console', label: 'Console' },
  { section: 'tunnel', href: '#/tunnel', label: 'Tunnel' },
  { section: 'settings', href: '#/settings', label: 'Settings' },
] as const;

export function Nav({ route }: { route: Route }) {
  const open = useApp(countOpen);
  const unread = useApp((s) => s.unreadAll);
  const worst = useApp(selectWorst);
  const stale = useApp(isStale);
  const hasAgents = useApp((s) => s.agentOrder.length > 0);
  const current = sectionOf(route);
  const now = useNow(30_000);
  const snoozedUntil = useApp((s) => (isSnoozed(s.alertStatus, now) ? (s.alertStatus?.snoozedUntil ?? null) : null));
  return (
    <nav aria-label="Main" className="nav">
      <ul>
        {ITEMS.map((it) => (
          <li key={it.section}>
            <a href={it.href} aria-current={current === it.section ? 'page' : undefined}>
              {it.label}
              {it.section === 'messages' && unread > 0 && (
                <>
                  <span className="count" aria-hidden="true">
                    {unread}
                  </span>
                  <span className="sr-only">{`, ${unread} unread`}</span>
                </>
              )}
              {it.section === 'alerts' && snoozedUntil !== null && (
                <>
                  <span
                    className="nav-snoozed"
                    aria-hidden="true"
                    title={`Snoozed until ${formatUntil(snoozedUntil, now)}`}
                  >
                    snoozed
                  </span>
                  <span className="sr-only">{`, snoozed until ${formatUntil(snoozedUntil, now)}`}</span>
                </>
              )}
              {it.section === 'alerts' && stale && (
                <>
                  <span className="count count-unknown" aria-hidden="true">
                    ?
                  </span>
                  <span className="sr-only">, open count unknown</span>
                </>
              )}
              {it.section === 'alerts' && !stale && open > 0 && (
                <>
                  <span className="count" aria-hidden="true">
                    {open}
                  </span>
                  <span className="sr-only">{`, ${open} open`}</span>
                </>
              )}
            </a>
          </li>
        ))}
      </ul>
      {hasAgents && (
        <p className="nav-worst">
          <span className="muted">Worst now:</span> <HealthBadge health={worst} short stale={stale} />
          {!stale && HEALTH_HINTS[worst] && <span className="nav-worst-hint muted">{HEALTH_HINTS[worst]}</span>}
        </p>
      )}
    </nav>
  );
}
