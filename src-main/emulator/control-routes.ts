// HTTP control surface under /_emulator (JSON in/out, no auth; served only by the emulator).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorControl } from './control';
import { EmulatorError } from './errors';
import { readJson, segments, sendError, sendJson } from './http';

type Handler = (body: unknown, params: string[], url: URL) => unknown;

interface Route {
  method: string;
  pattern: string[];
  handler: Handler;
}

export function controlRoutes(c: EmulatorControl): Route[] {
  const r = (method: string, path: string, handler: Handler): Route => ({
    method,
    pattern: path.split('/').filter(Boolean),
    handler,
  });
  /* eslint-disable @typescript-eslint/no-explicit-any -- bodies are validated by zod inside the control */
  return [
    r('POST', 'teams', (b) => c.createTeam((b ?? {}) as any)),
    r('POST', 'teams/:id/agents', (b, [teamId]) => c.createAgent(teamId!, (b ?? {}) as any)),
    r('POST', 'agents/:id/scan', (b, [id]) => c.scan(id!, b as any)),
    r('POST', 'agents/:id/drop', (b, [id]) => c.drop(id!, b as any)),
    r('POST', 'agents/:id/unlink', (_b, [id]) => c.unlink(id!)),
    r('POST', 'agents/:id/recover', (_b, [id]) => c.recover(id!)),
    r('GET', 'agents/:id/session', (_b, [id]) => c.session(id!)),
    r('POST', 'agents/:id/inbound', (b, [id]) => c.inbound(id!, b as any)),
    r('POST', 'agents/:id/media/:messageId/expire', (_b, [id, m]) => c.expireMedia(id!, decodeURIComponent(m!))),
    r('POST', 'agents/:id/deliver-on-register', (b, [id]) => c.deliverOnRegister(id!, b as any)),
    r('POST', 'agents/:id/chat-script', (b, [id]) => c.setChatScript(id!, (b ?? {}) as any)),
    r('GET', 'agents/:id/chats', (_b, [id]) => c.chats(id!)),
    r('POST', 'faults', (b) => c.addFault(b as any)),
    r('DELETE', 'faults', () => (c.clearFaults(), { ok: true })),
    r('POST', 'clock-skew', (b) => c.setClockSkew(b as any)),
    r('POST', 'contacts', (b) => c.setContacts(b as any)),
    r('GET', 'scripted-contacts', () => c.scriptedContacts()),
    r('POST', 'scripted-contacts', (b) => c.setScriptedContact(b)),
    r('DELETE', 'scripted-contacts/:phone', (_b, [p]) => c.removeScriptedContact(decodeURIComponent(p!))),
    r('POST', 'teams/:id/dialect', (b, [id]) => c.setTeamDialect(id!, b as any)),
    r('POST', 'agents/:id/dialect', (b, [id]) => c.setAgentDialect(id!, b as any)),
    r('GET', 'dialects', () => c.dialects()),
    r('GET', 'deliveries', (_b, _p, url) => {
      const agentId = url.searchParams.get('agentId');
      const all = c.deliveries();
      return agentId === null ? all : all.filter((d) => d.agentId === agentId);
    }),
    r('GET', 'state', () => c.state()),
    r('POST', 'reset', () => (c.reset(), { ok: true })),
  ];
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

function match(pattern: string[], seg: string[]): string[] | null {
  if (pattern.length !== seg.length) return null;
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) params.push(seg[i]!);
    else if (p !== seg[i]) return null;
  }
  return params;
}

export async function handleControl(req: IncomingMessage, res: ServerResponse, routes: Route[]): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const seg = segments(url.pathname).slice(1); // drop "_emulator"
    let allowed: string[] = [];
    for (const route of routes) {
      const params = match(route.pattern, seg);
      if (!params) continue;
      if (route.method !== req.method) {
        allowed.push(route.method);
        continue;
      }
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await readJson(req);
      const result = await route.handler(body, params, url);
      sendJson(res, 200, result);
      return;
    }
    allowed = [...new Set(allowed)];
    if (allowed.length > 0)
      throw new EmulatorError(405, 'METHOD_NOT_ALLOWED', `use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
    throw new EmulatorError(404, 'NOT_FOUND', 'no such control endpoint');
  } catch (err) {
    const e =
      err instanceof EmulatorError
        ? err
        : new EmulatorError(500, 'INTERNAL_ERROR', err instanceof Error ? err.message : 'internal error');
    sendError(res, e);
  }
}
