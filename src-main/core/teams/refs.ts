// Keychain account names. The config file holds these references, never the secrets.

export function apiKeyRef(teamId: string): string {
  return `team:${teamId}:api-key`;
}

export function signingSecretRef(teamId: string, agentId: string): string {
  return `team:${teamId}:agent:${agentId}:signing-secret`;
}

/** "…9f2c": the last 4 characters, shown only when the key is long enough (≥ 12) that they give little away. */
export function keyHint(apiKey: string): string {
  return apiKey.length >= 12 ? `…${apiKey.slice(-4)}` : '…';
}
