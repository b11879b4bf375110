// Hash routes: parse "#/agents/a1/pairing?team=t1" into a Route, and build hashes back.
export type AgentSub = 'agent' | 'pairing' | 'chat' | 'agent-settings';

export type Route =
  | { name: 'home' }
  | { name: AgentSub; agentId: string; teamId: string | null }
  | { name: 'console'; teamId: string | null; agentId: string | null }
  | { name: 'messages'; teamId: string | null; agentId: string | null; contact: string | null }
  | { name: 'tunnel' }
  | { name: 'alerts' }
  | { name: 'settings' }
  | { name: 'not-found'; path: string };

const SUBS: Record<string, AgentSub> = { pairing: 'pairing', chat: 'chat', settings: 'agent-settings' };

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  const parts = path.split('/').filter(Boolean);
  const team = params.get('team') || null;
  const [head, id, sub, ...extra] = parts;
  if (!head) return { name: 'home' };
  if (head === 'agents' && id && extra.length === 0) {
    const agentId = decode(id);
    if (agentId === null) return { name: 'not-found', path };
    if (!sub) return { name: 'agent', agentId, teamId: team };
    const name = SUBS[sub];
    if (name) return { name, agentId, teamId: team };
  }
  if (parts.length === 1) {
    if (head === 'console') return { name: 'console', teamId: team, agentId: params.get('agent') || null };
    if (head === 'messages')
      return {
        name: 'messages',
        teamId: team,
        agentId: params.get('agent') || null,
        contact: params.get('with') || null,
      };
    if (head === 'tunnel' || head === 'alerts' || head === 'settings') return { name: head };
  }
  return { name: 'not-found', path };
}

const enc = encodeURIComponent;

export function agentHref(teamId: string | null, agentId: string, sub: AgentSub = 'agent'): string {
  const tail = sub === 'agent' ? '' : sub === 'agent-settings' ? '/settings' : `/${sub}`;
  return `#/agents/${enc(agentId)}${tail}${teamId ? `?team=${enc(teamId)}` : ''}`;
}

export function consoleHref(teamId?: string | null, agentId?: string | null): string {
  const p = new URLSearchParams();
  if (teamId) p.set('team', teamId);
  if (agentId) p.set('agent', agentId);
  const qs = p.toString();
  return `#/console${qs ? `?${qs}` : ''}`;
}

export function messagesHref(teamId?: string | null, agentId?: string | null, contact?: string | null): string {
  const p = new URLSearchParams();
  if (teamId) p.set('team', teamId);
  if (agentId) p.set('agent', agentId);
  if (contact) p.set('with', contact);
  const qs = p.toString();
  return `#/messages${qs ? `?${qs}` : ''}`;
}

/** The top-level section a route belongs to (for the nav's aria-current). */
export function sectionOf(r: Route): 'agents' | 'alerts' | 'console' | 'messages' | 'tunnel' | 'settings' | null {
  switch (r.name) {
    case 'home':
    case 'agent':
    case 'pairing':
    case 'chat':
    case 'agent-settings':
      return 'agents';
    case 'console':
    case 'messages':
    case 'tunnel':
    case 'alerts':
    case 'settings':
      return r.name;
    default:
      return null;
  }
}
