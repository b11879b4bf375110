// The role table: one in the code (src-shared/roles.ts), the same one in docs/hub.md; each role may call what
// the roles before it may.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../../src-shared/contract';
import { leastRole, roleAllows, ROLES } from '../../../src-shared/roles';

describe('hub roles', () => {
  it('docs/hub.md lists every request under the least role the code gives it', () => {
    const doc = readFileSync(new URL('../../../docs/hub.md', import.meta.url), 'utf8');
    const documented = new Map<string, string>();
    for (const line of doc.split('\n')) {
      const row = /^\| (viewer|developer|on-call|admin) \| (.*) \|$/.exec(line);
      if (!row) continue;
      for (const [, name] of row[2]!.matchAll(/`([A-Za-z.]+)`/g)) documented.set(name!, row[1]!);
    }
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(REQUEST_NAMES.map((n) => [n, leastRole(n)])));
  });

  it('each role may do what the roles before it may; a viewer reads and an admin registers', () => {
    for (const name of REQUEST_NAMES) {
      const allowed = ROLES.map((r) => roleAllows(r, name));
      expect(allowed.indexOf(true)).toBe(ROLES.indexOf(leastRole(name)));
      expect(allowed.slice(allowed.indexOf(true)).every(Boolean)).toBe(true);
    }
    expect(roleAllows('viewer', 'teams.list')).toBe(true);
    expect(roleAllows('viewer', 'send.message')).toBe(false);
    expect(roleAllows('developer', 'send.message')).toBe(true);
    expect(roleAllows('developer', 'alerts.acknowledge')).toBe(false);
    expect(roleAllows('on-call', 'alerts.acknowledge')).toBe(true);
    expect(roleAllows('on-call', 'webhook.register')).toBe(false);
    expect(roleAllows('admin', 'webhook.register')).toBe(true);
  });
});
