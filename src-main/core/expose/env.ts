// What a tunnel program may see of this process's environment: nothing that holds a key or secret
// this process knows (API keys, signing secrets, the ngrok authtoken), whatever the variable's
// name. A variable is left out when its value is such a secret, or contains one long enough that
// it cannot be there by chance (`Bearer <key>`, a URL with the key in it).

/** Below this length a secret is matched only as the whole value (a short one could be part of anything). */
const MIN_CONTAINED = 12;

/** The environment without the variables that hold one of `secrets`. */
export function withoutSecrets(env: NodeJS.ProcessEnv, secrets: Iterable<string>): NodeJS.ProcessEnv {
  const known = [...new Set([...secrets].map((s) => s.trim()).filter((s) => s !== ''))];
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const v = value.trim();
    if (known.some((s) => v === s || (s.length >= MIN_CONTAINED && v.includes(s)))) continue;
    out[name] = value;
  }
  return out;
}

/** The teams whose keys and signing secrets the keychain holds (core/teams' TeamStore is one). */
export interface TeamSecretSource {
  listTeams(): ReadonlyArray<{ id: string; agents: ReadonlyArray<{ agentId: string }> }>;
  getApiKey(teamId: string): Promise<string>;
  getSigningSecrets(teamId: string, agentId: string): Promise<string[]>;
}

/**
 * Every API key and signing secret of the saved teams. One the keychain cannot give (missing,
 * locked) is left out: this process does not know it either.
 */
export async function teamSecrets(teams: TeamSecretSource): Promise<string[]> {
  const out: string[] = [];
  const keep = async (read: () => Promise<string | string[]>) => {
    try {
      const v = await read();
      out.push(...(Array.isArray(v) ? v : [v]));
    } catch {
      // not known to this process
    }
  };
  for (const t of teams.listTeams()) {
    await keep(() => teams.getApiKey(t.id));
    for (const a of t.agents) await keep(() => teams.getSigningSecrets(t.id, a.agentId));
  }
  return out;
}
