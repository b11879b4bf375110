// Where the receiver takes an agent's deliveries (receiver.ts reads the same path back).

/** An agent's hook URL at a base URL: <base>/hooks/<agentId>; with no agent, <base>/hooks (the default agent's). */
export function hookUrl(base: string, agentId?: string): string {
  const hooks = `${base.replace(/\/+$/, '')}/hooks`;
  return agentId === undefined ? hooks : `${hooks}/${encodeURIComponent(agentId)}`;
}
