// Registering an agent's webhook from the CLI against the emulator: asked first at a terminal
// (naming the URL that stops receiving when this install knows it, and the new signing secret),
// refused without one unless --yes; the history (`webhook history`), `webhook restore` and
// `webhook secret --reveal`; `listen` saying what it knows (and that a registration of this receiver
// no longer reaches it); and a delivery the service posts before its PUT is answered being held,
// not refused. `listen` over the saved team is a client of the data folder's companion (started for the
// command on a free port here); a `webhook set` in another command attaches to that one.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { CliIO } from '../../src-main/cli/io';
import { parseJsonLines, runCli, runCliUntil } from '../helpers/cli';
import { waitFor } from '../helpers/wait';
import { DEMO_KEY, control, state } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import type { HttpSink } from '../helpers/http-sink';
import { freePort } from '../helpers/prometheus-engines';

let emu: Emulator;
let sink: HttpSink;
let dir: string;
const store = new MemorySecretStore();
const AGENT = 'agent-connected';

emulatorSuite('cc-cli-registration-', (s) => ({ emu, sink, dir } = s));

/** A terminal: stdin is a TTY and each question gets the next answer; the questions are kept. */
function terminal(answers: string[]): { stdin: CliIO['stdin']; ask: NonNullable<CliIO['ask']>; questions: string[] } {
  const questions: string[] = [];
  return {
    stdin: { isTTY: true } as CliIO['stdin'],
    questions,
    ask: async (q) => {
      questions.push(q);
      return answers.shift() ?? '';
    },
  };
}

const base = () => ({ configDir: dir, secretStore: store });
const webhookOf = async () => (await state(emu)).agents.find((a) => a.agentId === AGENT)?.webhook?.url ?? null;

describe('webhook set / history / restore / secret', () => {
  it('adds the team', async () => {
    expect(
      (
        await runCli(['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', AGENT], {
          ...base(),
          env: { CHANNEL_API_KEY: DEMO_KEY },
        })
      ).code,
    ).toBe(0);
  });

  it('without a terminal and without --yes: refused (exit 2), nothing registered', async () => {
    const r = await runCli(['webhook', 'set', '--team', 'Demo', '--url', `${sink.url}/one`], base());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no terminal to ask at');
    expect(r.stderr).toContain('--yes');
    expect(r.stderr).toContain('The service issues a new signing secret');
    expect(await webhookOf()).toBeNull();
  });

  it('at a terminal: asks (nothing known: another app may be receiving); "no" registers nothing', async () => {
    const t = terminal(['n']);
    const r = await runCli(['webhook', 'set', '--team', 'Demo', '--url', `${sink.url}/one`], {
      ...base(),
      stdin: t.stdin,
      ask: t.ask,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not confirmed');
    expect(t.questions).toHaveLength(1);
    expect(t.questions[0]).toContain(`Point the webhook of ${AGENT} at ${sink.url}/one?`);
    expect(t.questions[0]).toContain('another app');
    expect(t.questions[0]).toContain('new signing secret');
    expect(await webhookOf()).toBeNull();
  });

  it('"yes" registers; the next question names the URL that stops receiving', async () => {
    const first = terminal(['y']);
    expect(
      (
        await runCli(['webhook', 'set', '--team', 'Demo', '--url', `${sink.url}/one`], {
          ...base(),
          stdin: first.stdin,
          ask: first.ask,
        })
      ).code,
    ).toBe(0);
    expect(await webhookOf()).toBe(`${sink.url}/one`);
    const second = terminal(['yes']);
    expect(
      (
        await runCli(['webhook', 'set', '--team', 'Demo', '--url', `${sink.url}/two`], {
          ...base(),
          stdin: second.stdin,
          ask: second.ask,
        })
      ).code,
    ).toBe(0);
    expect(second.questions[0]).toContain(`${sink.url}/one (registered by this install`);
    expect(await webhookOf()).toBe(`${sink.url}/two`);
  });

  it("webhook history: this install's registrations, newest first, with where they came from", async () => {
    const r = await runCli(['webhook', 'history', '--team', 'Demo', '--json'], base());
    expect(r.code).toBe(0);
    const [h] = r.json();
    expect((h!.entries as Array<{ url: string; source: string }>).map((e) => [e.url, e.source])).toEqual([
      [`${sink.url}/two`, 'webhook set'],
      [`${sink.url}/one`, 'webhook set'],
    ]);
    const text = await runCli(['webhook', 'history', '--team', 'Demo'], base());
    expect(text.stdout).toContain(`${sink.url}/two  (webhook set)`);
  });

  it('webhook restore: the previous URL again, and the plain word that its app needs the new secret', async () => {
    const r = await runCli(['webhook', 'restore', '--team', 'Demo', '--yes'], base());
    expect(r.code).toBe(0);
    expect(await webhookOf()).toBe(`${sink.url}/one`);
    expect(r.stdout).toContain(`The webhook points at ${sink.url}/one again`);
    expect(r.stdout).toContain('rejects deliveries until it is given the new secret');
    expect(r.stdout).toContain('webhook secret --team Demo --agent agent-connected --reveal');
    const h = (await runCli(['webhook', 'history', '--team', 'Demo', '--json'], base())).json()[0]!;
    expect((h.entries as Array<{ source: string }>)[0]!.source).toBe('webhook restore');
  });

  it('a history file that is not one: set aside with a warning, the command goes on', async () => {
    const file = join(dir, 'data', 'webhook-registrations.json');
    const kept = await readFile(file, 'utf8');
    await writeFile(file, 'not json at all');
    const r = await runCli(['webhook', 'history', '--team', 'Demo', '--json'], base());
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /was not valid JSON; it was set aside as webhook-registrations\.json\.unreadable-\d+ and a new one started/,
    );
    expect(r.json()[0]!.entries).toEqual([]);
    const restore = await runCli(['webhook', 'restore', '--team', 'Demo', '--yes'], base());
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain("no previous URL of agent-connected in this install's history");
    await writeFile(file, kept);
  });

  it('webhook secret --reveal: refused without a terminal; at one, the secret the service now signs with', async () => {
    const refused = await runCli(['webhook', 'secret', '--team', 'Demo', '--reveal'], base());
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    const hint = await runCli(['webhook', 'secret', '--team', 'Demo', '--json'], base());
    const { secretHint } = hint.json()[0]!;
    expect(hint.stdout).not.toMatch(/whsec_[0-9a-f]{16}/);
    const t = terminal([]);
    const shown = await runCli(['webhook', 'secret', '--team', 'Demo', '--reveal'], {
      ...base(),
      stdin: t.stdin,
      ask: t.ask,
    });
    expect(shown.code).toBe(0);
    const secret = shown.stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(`…${secret.slice(-4)}`).toBe(secretHint);
  });
});

describe('listen and registration', () => {
  it('--register-url without a terminal and without --yes: refused before anything starts', async () => {
    const r = await runCli(
      ['listen', '--team', 'Demo', '--register-url', 'self', '--data-dir', join(dir, 'refused'), '--json'],
      base(),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--yes');
  });

  it('a delivery the service posts before its PUT is answered is held, then verified: never refused', async () => {
    await control(emu, 'POST', `/agents/${AGENT}/deliver-on-register`, {
      from: '+15550100002',
      type: 'text',
      text: 'before the reply',
    });
    const r = await runCliUntil(
      [
        'listen',
        '--team',
        'Demo',
        '--register-url',
        'self',
        '--forward-to',
        sink.url,
        '--port',
        '0',
        '--yes',
        '--json',
      ],
      base(),
      {
        until: (lines) => lines.some((l) => l.event === 'delivery' || l.event === 'refused'),
      },
    );
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines.filter((l) => l.event === 'refused')).toEqual([]);
    expect(lines).toContainEqual({
      event: 'delivery',
      delivery: expect.objectContaining({ agentId: AGENT, verdict: 'verified' }),
    });
    const delivery = (
      await control<Array<{ agentId: string; rawBody: string; attempts: Array<{ status: number | null }> }>>(
        emu,
        'GET',
        `/deliveries?agentId=${AGENT}`,
      )
    ).find((d) => d.rawBody.includes('before the reply'));
    expect(delivery!.attempts[0]!.status).toBe(200);
  });

  it('`webhook set` in another command while listen receives on the same data folder: the early delivery is held, never refused', async () => {
    const data = join(dir, 'cross');
    await control(emu, 'POST', `/agents/${AGENT}/deliver-on-register`, {
      from: '+15550100002',
      type: 'text',
      text: 'set from another terminal',
    });
    let set: Awaited<ReturnType<typeof runCli>> | null = null;
    const ctl = new AbortController();
    const errors: unknown[] = [];
    let started = false;
    const seen = (all: string) => parseJsonLines(all).some((l) => l.event === 'delivery' || l.event === 'refused');
    let out = '';
    const r = await runCli(['listen', '--team', 'Demo', '--data-dir', data, '--port', '0', '--json'], {
      ...base(),
      signal: ctl.signal,
      onStdout: (_c, all) => {
        out = all;
        const listenUrl = parseJsonLines(all).find((l) => l.event === 'ready')?.url as string | undefined;
        if (listenUrl !== undefined && !started) {
          started = true;
          // `webhook set` is a client of this listen's companion: the listen stops once that has its answer.
          void runCli(
            ['webhook', 'set', '--team', 'Demo', '--url', `${listenUrl}/hooks/${AGENT}`, '--yes', '--data-dir', data],
            base(),
          )
            .then(async (done) => {
              set = done;
              await waitFor(() => seen(out), 10_000, 'the early delivery');
            })
            .catch((e: unknown) => errors.push(e))
            .finally(() => ctl.abort());
        }
      },
    });
    expect(errors).toEqual([]);
    expect(set!.code).toBe(0);
    expect(set!.stderr).not.toContain('does not answer');
    const lines = r.json();
    expect(lines.filter((l) => l.event === 'refused')).toEqual([]);
    expect(lines).toContainEqual({
      event: 'delivery',
      delivery: expect.objectContaining({ agentId: AGENT, verdict: 'verified' }),
    });
    const delivery = (
      await control<Array<{ rawBody: string; attempts: Array<{ status: number | null }> }>>(
        emu,
        'GET',
        `/deliveries?agentId=${AGENT}`,
      )
    ).find((d) => d.rawBody.includes('set from another terminal'));
    expect(delivery!.attempts[0]!.status).toBe(200);
  });

  it('at a terminal, listen asks for each agent; "no" leaves its webhook as it was and the receiver runs', async () => {
    const before = await webhookOf();
    const t = terminal(['n']);
    const r = await runCliUntil(
      [
        'listen',
        '--team',
        'Demo',
        '--register-url',
        'self',
        '--data-dir',
        join(dir, 'declined'),
        '--port',
        '0',
        '--json',
      ],
      { ...base(), stdin: t.stdin, ask: t.ask },
      {
        until: (lines) => lines.some((l) => l.event === 'ready'),
      },
    );
    expect(r.code).toBe(0);
    expect(t.questions).toHaveLength(1);
    expect(t.questions[0]).toMatch(
      /^Point the webhook of agent-connected at http:\/\/127\.0\.0\.1:\d+\/hooks\/agent-connected\? /,
    );
    expect(r.stderr).toContain('not registering agent-connected: its webhook is left as it was');
    expect(r.json().some((l) => l.event === 'registered')).toBe(false);
    expect(await webhookOf()).toBe(before);
  });

  it('the ready line says what is known; a registration of this receiver that no longer reaches it says so', async () => {
    // On another port than the one registered last (a port the system hands out again would reach it).
    const registered = Number(new URL((await webhookOf())!).port);
    let port = registered;
    while (port === registered) port = await freePort();
    const r = await runCliUntil(['listen', '--team', 'Demo', '--port', String(port), '--json'], base(), {
      until: (lines) => lines.some((l) => l.event === 'ready'),
    });
    const ready = r.json().find((l) => l.event === 'ready')!;
    const [known] = ready.agents as Array<{ agentId: string; registration: { state: string; text: string } }>;
    expect(known).toMatchObject({ agentId: AGENT, registration: { state: 'stale' } });
    expect(known!.registration.text).toContain('no longer reaches this receiver');
    expect(known!.registration.text).toContain('register again');
    const ctl = new AbortController();
    const human = await runCli(['listen', '--team', 'Demo', '--port', String(port)], {
      ...base(),
      signal: ctl.signal,
      onStdout: (_c, all) => void (all.includes('Press Ctrl-C') && ctl.abort()),
    });
    expect(human.stdout).toMatch(
      /\n {2}agent-connected: http:\/\/127\.0\.0\.1:\d+\/hooks\/agent-connected — registered here at \d\d:\d\d to http:\/\/127\.0\.0\.1:\d+\/hooks\/agent-connected, which no longer reaches this receiver .*: register again\n/,
    );
    expect(human.stdout).toContain(
      'to register this receiver again: run listen with --register-url self (a service on this machine)',
    );
  });

  it('a URL with a user and password is refused, as the app refuses it; a query value and a token in its path: redacted in every output and the history', async () => {
    const u = new URL(sink.url);
    const before = await webhookOf();
    const withUser = await runCli(
      ['webhook', 'set', '--team', 'Demo', '--url', `http://user:pw@${u.host}/in`, '--yes', '--json'],
      base(),
    );
    expect(withUser.code).toBe(2);
    expect(withUser.stdout).toBe('');
    expect(withUser.stderr).toContain('Public URL must not contain a user or password.');
    expect(withUser.stdout + withUser.stderr).not.toContain('pw@');
    expect(await webhookOf()).toBe(before);

    const url = `http://${u.host}/in/tok_5f1c9a0e7b3d2c4a?token=SECRET`;
    const shown = `http://${u.host}/in/…?token=…`;
    const t = terminal(['y']);
    const set = await runCli(['webhook', 'set', '--team', 'Demo', '--url', url, '--json'], {
      ...base(),
      stdin: t.stdin,
      ask: t.ask,
    });
    expect(set.code).toBe(0);
    // The service is given the URL as it is.
    expect(await webhookOf()).toBe(url);
    expect(set.json()[0]).toMatchObject({ url: shown });
    expect(t.questions[0]).toContain(`at ${shown}?`);
    const history = await runCli(['webhook', 'history', '--team', 'Demo', '--json'], base());
    expect((history.json()[0]!.entries as Array<{ url: string }>)[0]!.url).toBe(shown);
    const file = await readFile(join(dir, 'data', 'webhook-registrations.json'), 'utf8');
    for (const out of [set.stdout, set.stderr, t.questions.join('\n'), history.stdout, file])
      for (const secret of ['SECRET', 'tok_5f1c']) expect(out).not.toContain(secret);
    // It cannot be restored from the history: said, nothing registered.
    await runCli(['webhook', 'set', '--team', 'Demo', '--url', `${sink.url}/three`, '--yes'], base());
    const restore = await runCli(['webhook', 'restore', '--team', 'Demo', '--yes'], base());
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toContain('which the history does not keep');
    expect(await webhookOf()).toBe(`${sink.url}/three`);
  });
});
