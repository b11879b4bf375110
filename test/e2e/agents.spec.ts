// Agents home and the agent page, in Chromium against `serve --emulator` (the demo team): the three
// agents worst-first with health in words; the filter; the agent page shows the session fields as
// the service reports them; a dropped link turns reconnecting and back, and the timeline records
// it; adding a team with a wrong key says "key rejected" and keeps what was typed.
import { expect, test } from '@playwright/test';
import { AGENTS, agentHash, agentRow, control, field, LABELS, open, shooter, useDemoServe } from './support/kit';

const DROP_SEC = 3;

test.describe('agents screens', () => {
  const suite = useDemoServe();

  test('home lists the demo agents worst first, with health words, and filters', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite);
    const rows = page.locator('ul.agents > li');
    await expect(rows).toHaveCount(3, { timeout: 15_000 });
    await expect(agentRow(page, AGENTS.unlinked)).toContainText('Needs a QR scan', { timeout: 10_000 });
    await expect(agentRow(page, AGENTS.connected)).toContainText('Connected', { timeout: 10_000 });
    await expect(agentRow(page, AGENTS.connected)).toContainText('+15550100001');
    await expect(agentRow(page, AGENTS.unlinked)).toContainText('no number');
    // Worst first: the unlinked agent heads the list; the list says how it is ordered.
    await expect(rows.first()).toContainText(LABELS.unlinked);
    await expect(page.getByRole('list', { name: /3 agents, worst health first/ })).toBeVisible();
    // Health is said in words and glyph, not colour only.
    for (const r of await rows.all())
      await expect(r.locator('.badge')).toHaveText(
        /Connected|Needs a QR scan|Reconnecting|Unreachable|Not checked yet/,
      );
    await shot('home');

    const filter = page.getByLabel('Filter agents');
    await filter.fill('support');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(LABELS.connected);
    await filter.fill('needs scan');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(LABELS.unlinked);
    await filter.fill('15550100003');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(LABELS.flaky);
    await shot('filtered');
    await filter.fill('no-such-agent');
    await expect(rows).toHaveCount(0);
    await expect(page.getByText('No agent matches “no-such-agent”.')).toBeVisible();
    await shot('filter-none');
    await filter.fill('');
    await expect(rows).toHaveCount(3);

    // The row's link opens the agent page.
    await agentRow(page, AGENTS.connected).getByRole('link', { name: LABELS.connected, exact: true }).click();
    await expect(page.getByRole('heading', { level: 2, name: LABELS.connected })).toBeVisible();
  });

  test('agent page shows the session as reported, and a dropped link reconnects with a timeline entry', async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000); // the incident closes 30 s after the link is back
    const shot = shooter(page, testInfo);
    // The unlinked agent first: linked false, needsScan true, no phone.
    await open(page, suite, agentHash(suite, AGENTS.unlinked));
    await expect(page.getByRole('heading', { level: 2, name: LABELS.unlinked })).toBeVisible();
    const sessionCard = page.locator('section.card', {
      has: page.getByRole('heading', { name: 'Session, as the service reports it' }),
    });
    await expect(field(sessionCard, 'linked')).toHaveText('false', { timeout: 10_000 });
    await expect(field(sessionCard, 'connected')).toHaveText('false');
    await expect(field(sessionCard, 'needsScan')).toHaveText('true');
    await expect(field(sessionCard, 'phone')).toHaveText('null');
    await expect(
      page.getByRole('navigation', { name: 'Agent actions' }).getByRole('link', { name: 'Pair' }),
    ).toBeVisible();
    await shot('agent-unlinked');

    await open(page, suite, agentHash(suite, AGENTS.connected));
    await expect(page.getByRole('heading', { level: 2, name: LABELS.connected })).toBeVisible();
    await expect(field(sessionCard, 'connected')).toHaveText('true', { timeout: 10_000 });
    await expect(field(sessionCard, 'linked')).toHaveText('true');
    await expect(field(sessionCard, 'state')).toHaveText('connected');
    await expect(field(sessionCard, 'needsScan')).toHaveText('false');
    await expect(field(sessionCard, 'phone')).toHaveText('15550100001');
    await expect(
      page.getByRole('img', { name: /QR code that opens a WhatsApp chat with \+15550100001/ }),
    ).toBeVisible();
    const timeline = page.locator('section.card', { has: page.getByRole('heading', { name: 'Incident timeline' }) });
    await expect(timeline).toContainText('No incidents seen for this agent.');
    await shot('agent-connected');

    // Drop the link: reconnecting within a fast poll or two, then connected again on its own.
    await control(suite, `/agents/${AGENTS.connected}/drop`, { seconds: DROP_SEC });
    const monitorCard = page.locator('section.card', { has: page.getByRole('heading', { name: 'Monitor' }) });
    await expect(page.locator('h2 + p .badge')).toContainText('Reconnecting', { timeout: 5_000 });
    await expect(field(monitorCard, 'health')).toContainText('reconnecting');
    // The session card is read again as soon as the monitor sees the change (not at its next 5 s
    // read), so the two cards agree.
    await expect(field(sessionCard, 'state')).toHaveText('reconnecting', { timeout: 2_000 });
    await expect(field(sessionCard, 'connected')).toHaveText('false');
    await expect(timeline.locator('li.incident')).toHaveCount(1, { timeout: 5_000 });
    await expect(timeline.locator('li.incident').first()).toContainText(/reconnecting/i);
    await shot('agent-reconnecting');
    await expect(page.locator('h2 + p .badge')).toHaveText(/Connected/, { timeout: (DROP_SEC + 6) * 1000 });
    await expect(field(sessionCard, 'connected')).toHaveText('true', { timeout: 8_000 });
    // A drop is over once the number has stayed connected for 30 s (the alert policy's recoverAfterSec).
    await expect(timeline.locator('li.incident').first()).toContainText(/· resolved (just now|\d)/, {
      timeout: 35_000,
    });
    await shot('agent-back');
  });

  test('an agent that is not in any team says so', async ({ page }, testInfo) => {
    await open(page, suite, '#/agents/agent-nobody');
    await expect(page.getByText('This agent is not in any of your teams.')).toBeVisible();
    await shooter(page, testInfo)('unknown-agent');
  });

  test('adding a team with a wrong key says "key rejected" and keeps the typed values', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    const emu = suite.emulator;
    await open(page, suite, '#/settings');
    await page.getByRole('button', { name: 'Add a team…' }).click();
    const form = page.locator('form', { has: page.getByLabel('Team API key') });
    await form.getByLabel('Team name').fill('Wrong key team');
    await form.getByLabel('Service address').fill(emu.baseUrl);
    await form.getByLabel('Team API key').fill('wrong-key-000000000000');
    await form.getByLabel(/^Agent IDs/).fill('agent-connected, agent-flaky');
    await form.getByRole('button', { name: 'Add team' }).click();
    const alert = form.getByRole('alert');
    await expect(alert).toContainText('key rejected', { timeout: 10_000 });
    await expect(alert).toContainText('Copy a current key from the dashboard');
    await expect(alert).not.toContainText('wrong-key-000000000000');
    await expect(form.getByLabel('Team name')).toHaveValue('Wrong key team');
    await expect(form.getByLabel('Service address')).toHaveValue(emu.baseUrl);
    await expect(form.getByLabel('Team API key')).toHaveValue('wrong-key-000000000000');
    await expect(form.getByLabel(/^Agent IDs/)).toHaveValue('agent-connected, agent-flaky');
    await expect(form.getByLabel('Team API key')).toHaveAttribute('aria-invalid', 'true');
    await shot('wrong-key');
    // Nothing was added.
    await expect(page.getByRole('article', { name: 'Team Wrong key team' })).toHaveCount(0);
  });
});
