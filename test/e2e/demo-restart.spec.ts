// `serve --emulator` killed (as a crash would) and started again on its folders, with an incident open
// and a Messages thread open in the tab: the demo team keeps its id and the emulator its address; the
// incident comes back with its id, severity and start; the open tab reads everything again (the thread
// with its messages) before it says what is shown is current; a reply goes out and the demo's scripted
// contact answers into the same thread. Shot at 1280×800 and 1024×700 before and after; axe finds
// nothing serious or critical, light and dark.
import { expect, test } from '@playwright/test';
import { AGENTS, hostCall, noSeriousAxe, open, shooterSizes, useServe } from './support/kit';

/** The fields of the contract's IncidentDTO this test compares. */
interface IncidentDTO {
  id: string;
  teamId: string;
  agentId: string;
  kind: string;
  severity: string;
  openedAt: number;
  resolvedAt: number | null;
}

/** The demo's scripted contact: it answers every message sent to it. */
const ROBIN = '+15550100042';

test.describe('serve --emulator restarted', () => {
  const suite = useServe(['--emulator', '--poll-sec', '2', '--fast-poll-sec', '1'], { restartable: 'by-itself' });

  test('the incident keeps its id and start, the open thread reloads, and a reply goes out', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    const shots = shooterSizes(page, testInfo);
    await page.setViewportSize({ width: 1280, height: 800 });
    const incidentOf = async () =>
      (await hostCall<IncidentDTO[]>(suite.ready, 'alerts.list')).find((i) => i.agentId === AGENTS.unlinked);
    // The seeded agent that needs a scan has its incident open.
    await expect.poll(incidentOf, { timeout: 15_000 }).toBeTruthy();
    const before = (await incidentOf())!;
    const teamId = suite.teamId;
    const emulatorUrl = suite.emulator.baseUrl;

    const hash = `#/messages?team=${encodeURIComponent(teamId)}&agent=${AGENTS.connected}&with=${encodeURIComponent(ROBIN)}`;
    await open(page, suite, hash);
    const conv = page.getByRole('region', { name: `Conversation with ${ROBIN}` });
    const reply = page.getByLabel('Reply', { exact: true });
    await expect(conv).toBeVisible();
    await reply.fill('Hello Robin, before the restart.');
    await reply.press('Enter');
    await expect(
      conv.locator('li.messages-bubble.in').filter({ hasText: 'You said: Hello Robin, before' }),
    ).toBeVisible({ timeout: 15_000 });
    await shots('before-restart');

    await suite.kill();
    await expect(page.getByRole('region', { name: /not answering/ })).toBeVisible({ timeout: 10_000 });
    await suite.restart();
    // The same demo team and the same emulator address.
    expect(suite.teamId).toBe(teamId);
    expect(suite.emulator.baseUrl).toBe(emulatorUrl);
    await expect(page.getByRole('region', { name: /not answering/ })).toHaveCount(0, { timeout: 15_000 });
    await expect(page.getByText('The companion answers again; what is shown is current.')).toBeAttached({
      timeout: 15_000,
    });
    // The thread was read again: both messages of before the restart are there.
    await expect(conv.locator('li.messages-bubble.out').filter({ hasText: 'before the restart' })).toBeVisible();
    await expect(
      conv.locator('li.messages-bubble.in').filter({ hasText: 'You said: Hello Robin, before' }),
    ).toBeVisible();

    // The incident is the same one: its id, severity and start.
    const after = await incidentOf();
    expect(after).toMatchObject({
      id: before.id,
      teamId,
      kind: before.kind,
      severity: before.severity,
      openedAt: before.openedAt,
      resolvedAt: null,
    });

    // A reply goes out from the reloaded thread and is answered into it (the receiver was registered again).
    await reply.fill('Hello Robin, after the restart.');
    await reply.press('Enter');
    await expect(conv.locator('li.messages-bubble.out').filter({ hasText: 'after the restart' })).toContainText(
      'sent',
      { timeout: 15_000 },
    );
    await expect(conv.locator('li.messages-bubble.in').filter({ hasText: 'You said: Hello Robin, after' })).toBeVisible(
      {
        timeout: 15_000,
      },
    );
    await noSeriousAxe(page);
    await shots('thread-after-restart');

    await page.evaluate(() => (window.location.hash = '#/alerts'));
    const row = page
      .getByRole('main')
      .getByText(/New agent|agent-unlinked/)
      .first();
    await expect(row).toBeVisible({ timeout: 10_000 });
    await noSeriousAxe(page);
    await shots('alerts-after-restart');
  });
});
