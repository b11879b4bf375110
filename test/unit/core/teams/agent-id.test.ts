// One agent id rule: what a team accepts as an agent, what a command's --agent flag accepts and what the
// receiver routes as /hooks/<agent> agree on every id; and one lookup: the id exactly, else the label in
// any case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { hookUrl } from '../../../../src-main/core/tunnel/hook-url';
import { v1Signature } from '../../../helpers/signatures';
import { agentIdSchema, findAgent } from '../../../../src-main/core/teams/agent-id';
import { agentId as agentFlag } from '../../../../src-main/cli/flags';
import { FakeClock, rawRequest, tempDir } from '../tunnel/helpers';

const NOW_MS = 1_750_000_000_000;
const SECRET = 'whsec_agent_id_rule_0123';

const IDS: Array<[string, boolean]> = [
  ['agent-one', true],
  ['ops:bot', true],
  ['team@bot', true],
  ['Bot.v2_x~1', true],
  ['7', true],
  ['a'.repeat(200), true],
  ['a'.repeat(201), false],
  ['-leading-dash', false],
  ['~tilde-first', false],
  ['ops/bot', false],
  ['ops bot', false],
  ['ops!bot', false],
  ['ops#bot', false],
  ['ops%bot', false],
  ['bötchen', false],
  ['', false],
];

describe('one agent id rule', () => {
  let tunnel: Tunnel;
  let base: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const t = await tempDir('agent-id-');
    cleanup = t.cleanup;
    tunnel = new Tunnel({
      dataDir: t.dir,
      clock: new FakeClock(NOW_MS),
      getSecrets: async () => [SECRET],
      refusalRate: { burst: 1e6, perSec: 1 },
    });
    base = (await tunnel.start()).url;
  });
  afterAll(async () => {
    await tunnel.stop();
    await cleanup();
  });

  it.each(IDS)('%j: a team, the --agent flag and the receiver all say %s', async (id, valid) => {
    expect(agentIdSchema.safeParse(id).success).toBe(valid);
    expect(agentFlag.safeParse(id).success).toBe(valid);
    if (id === '') return; // no path of its own: /hooks/ is the default agent's
    const body = JSON.stringify({ event: 'message.received', from: '15550100002', message: { id: `m_${id.length}` } });
    const res = await rawRequest(hookUrl(base, id), {
      headers: {
        'content-type': 'application/json',
        'x-service-signature-v1': v1Signature(SECRET, body, NOW_MS / 1000),
      },
      body,
    });
    // A hook answers whatever its verdict; anything else is 404 not-a-hook.
    expect(res.status !== 404).toBe(valid);
  });

  it('says the rule in the words of the team schema', () => {
    const r = agentIdSchema.safeParse('ops/bot');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('must be letters, digits or . _ ~ : @ - (no slashes or spaces)');
  });
});

describe('findAgent', () => {
  const agents = [
    { agentId: 'bot', label: 'Sales' },
    { agentId: 'Bot', label: 'Support' },
    { agentId: 'ops:bot', label: 'bot' },
  ];

  it('takes the id exactly: ids that differ in case are two agents', () => {
    expect(findAgent(agents, 'bot')?.label).toBe('Sales');
    expect(findAgent(agents, 'Bot')?.label).toBe('Support');
  });

  it('else the label, in any case', () => {
    expect(findAgent(agents, 'SUPPORT')?.agentId).toBe('Bot');
    expect(findAgent(agents, 'sales')?.agentId).toBe('bot');
  });

  it('an id beats a label that reads the same; nothing found is undefined', () => {
    expect(findAgent(agents, 'bot')?.agentId).toBe('bot');
    expect(findAgent(agents, 'BOT')?.agentId).toBe('ops:bot'); // no id "BOT": the label "bot"
    expect(findAgent(agents, 'nobody')).toBeUndefined();
  });
});
