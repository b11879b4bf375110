// Alerts, in Chromium against `serve --emulator` (the demo team): unlinking an agent raises an
// in-app notice and lists the open incident; acknowledge; snooze 15 min and resume; quiet hours
// saved (and kept after a reload); a bad quiet-hours time, or the same start and end, is refused with
// the field marked; the alert rules saved together in one form (kept after a reload), bad values
// marked and kept; a resolved incident in the history, filtered and exported as CSV; availability on
// the agent page.
import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { AGENTS, control, hostCall, LABELS, open, shooter, shooterAcross, useDemoServe } from './support/kit';

test.describe('alerts screen', () => {
  const suite = useDemoServe();

  test('an unlinked agent raises a notice and an open incident that can be acknowledged', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/alerts');
    await expect(page.getByRole('heading', { level: 2, name: 'Alerts' })).toBeVisible();
    // Each incident's own row, whether alone or under its group's header (both agents' incidents can be one
    // group: raised within 10 s of each other).
    const incidents = page.locator('ul.incidents li.incident');
    // The demo's unlinked agent already has its incident.
    await expect(incidents.filter({ hasText: LABELS.unlinked })).toHaveCount(1, { timeout: 10_000 });
    await shot('before');

    await control(suite, `/agents/${AGENTS.connected}/unlink`);
    // The in-app notice, urgent (a scan is needed), with a way to open the agent.
    const toast = page
      .getByRole('status', { name: 'Notifications' })
      .locator('li.toast')
      .filter({ hasText: `${LABELS.connected} (` });
    await expect(toast.first()).toBeVisible({ timeout: 6_000 });
    await expect(toast.first()).toContainText(/Urgent:.*(QR scan|unlinked)/);
    await expect(toast.first().getByRole('link', { name: /^Support bot \(/ })).toBeVisible();
    const row = incidents.filter({ hasText: LABELS.connected });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(/Urgent: Support bot — .*(QR scan|unlinked)/);
    await expect(row).toContainText('not acknowledged');
    await expect(row.getByRole('link', { name: `Pair ${LABELS.connected}` })).toBeVisible();
    await expect(page.getByRole('heading', { name: /Open incidents \(2\)/ })).toBeVisible();
    await expect(page.getByRole('link', { name: /^Alerts\s*, 2 open$/ })).toBeVisible();
    await shot('unlinked-notice');

    // Acknowledge it.
    await row.getByRole('button', { name: /^Acknowledge .* for Support bot$/ }).click();
    await expect(row).toContainText('· acknowledged');
    await expect(row.getByRole('button', { name: /^Acknowledge/ })).toHaveCount(0);
    // The other one is still open and unacknowledged.
    await expect(incidents.filter({ hasText: LABELS.unlinked })).toContainText('not acknowledged');
    // Dismiss the notice with the keyboard-reachable button.
    await toast
      .first()
      .getByRole('button', { name: /^Dismiss:/ })
      .click();
    await expect(toast).toHaveCount(0);
    await shot('acknowledged');
  });

  test('snooze for 15 minutes, then resume', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/alerts');
    const snooze = page.locator('section.card', { has: page.getByRole('heading', { name: 'Snooze' }) });
    await expect(snooze).toContainText('Alerts are on.');
    const before = Date.now();
    await snooze.getByRole('button', { name: 'Snooze 15 min' }).click();
    await expect(snooze).toContainText(/Alerts are snoozed until .*\d{1,2}:\d{2}/);
    // The time shown is 15 minutes from now, said as a clock time without seconds, as every screen says one.
    const shown = ((await snooze.locator('strong').textContent()) ?? '').trim();
    expect(shown).not.toMatch(/\d{1,2}:\d{2}:\d{2}/);
    const expected = await page.evaluate(
      (at) =>
        [0, 60_000].map((d) => new Date(at + d).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })),
      before + 15 * 60_000,
    );
    expect(expected.some((e) => shown.endsWith(e))).toBe(true);
    await shot('snoozed');
    // It holds across a reload (the main side keeps it).
    await page.reload();
    await expect(snooze).toContainText(/Alerts are snoozed until/, { timeout: 10_000 });
    await snooze.getByRole('button', { name: 'Resume alerts now' }).click();
    await expect(snooze).toContainText('Alerts are on.');
    await expect(snooze.getByRole('group', { name: 'Snooze alerts for' })).toBeVisible();
    await shot('resumed');
  });

  test('quiet hours are saved and kept; a missing time is refused, and so is the same start and end', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    const shotsAcross = shooterAcross(page, testInfo);
    await open(page, suite, '#/alerts');
    const quiet = page.locator('section.card', { has: page.getByRole('heading', { name: 'Quiet hours' }) });
    await quiet.getByLabel('Keep non-urgent alerts silent during quiet hours').check();
    await quiet.getByLabel('Quiet from').fill('21:30');
    await quiet.getByLabel('Quiet until').fill('06:45');
    await quiet.getByRole('button', { name: 'Save quiet hours' }).click();
    await expect(quiet.getByRole('status')).toHaveText('Saved.');
    await shot('quiet-saved');

    await page.reload();
    await expect(quiet.getByLabel('Quiet from')).toHaveValue('21:30', { timeout: 10_000 });
    await expect(quiet.getByLabel('Quiet until')).toHaveValue('06:45');
    await expect(quiet.getByLabel('Keep non-urgent alerts silent during quiet hours')).toBeChecked();

    // Error path: an empty end time is refused, the field is marked, nothing is saved.
    await quiet.getByLabel('Quiet until').fill('');
    await quiet.getByRole('button', { name: 'Save quiet hours' }).click();
    await expect(quiet.getByRole('alert')).toContainText('The end time must look like 22:00.');
    await expect(quiet.getByLabel('Quiet until')).toHaveAttribute('aria-invalid', 'true');
    await shot('quiet-invalid');
    await page.reload();
    await expect(quiet.getByLabel('Quiet until')).toHaveValue('06:45', { timeout: 10_000 });

    // The same start and end would be no window at all: refused with a message, nothing saved.
    await quiet.getByLabel('Quiet from').fill('07:00');
    await quiet.getByLabel('Quiet until').fill('07:00');
    await quiet.getByRole('button', { name: 'Save quiet hours' }).click();
    await expect(quiet.getByRole('alert')).toContainText('Quiet from 07:00 until 07:00 is no time at all');
    await expect(quiet.getByRole('alert')).not.toContainText(/\([A-Z][A-Z_]{3,}\)/);
    await expect(quiet.getByLabel('Quiet until')).toHaveAttribute('aria-invalid', 'true');
    await quiet.scrollIntoViewIfNeeded();
    await shotsAcross('quiet-hours-same');
    await page.reload();
    await expect(quiet.getByLabel('Quiet from')).toHaveValue('21:30', { timeout: 10_000 });
  });

  test('alert rules are saved together and kept; out-of-range values are marked and nothing is saved', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/alerts');
    const rules = page.locator('section.card', { has: page.getByRole('heading', { name: 'Alert rules' }) });
    await rules.getByLabel('Reconnect grace (seconds)').fill('30');
    await rules.getByLabel('Flapping after (drops)').fill('1');
    await rules.getByRole('button', { name: 'Save alert rules' }).click();
    await expect(rules.getByRole('alert')).toContainText('out of range');
    await expect(rules.getByLabel('Flapping after (drops)')).toHaveAttribute('aria-invalid', 'true');
    await expect(rules.getByText('Flapping after (drops) must be between 2 and 100.')).toBeVisible();
    await expect(rules.getByLabel('Reconnect grace (seconds)')).toHaveValue('30');
    await shot('rules-invalid');
    // Nothing was saved: a reload shows what the main process holds.
    await page.reload();
    await expect(rules.getByLabel('Reconnect grace (seconds)')).toHaveValue('0', { timeout: 10_000 });
    await expect(rules.getByLabel('Flapping after (drops)')).toHaveValue('3');
    // The rules shown are the rules used: the grace of a repeat drop too, and what a poll can miss.
    await expect(rules.getByLabel('Repeat drop grace (seconds)')).toHaveValue('60');
    await expect(rules.getByText(/Drops shorter than about \d+ s can be missed at a \d+ s poll\./)).toBeVisible();

    await rules.getByLabel('Reconnect grace (seconds)').fill('30');
    await rules.getByLabel('Flapping after (drops)').fill('4');
    await rules.getByLabel('Repeat drop grace (seconds)').fill('90');
    // Enter in a field saves the whole form.
    await rules.getByLabel('Flapping after (drops)').press('Enter');
    await expect(rules.getByRole('status')).toHaveText('Saved; the monitor uses them now.');
    await expect(rules.getByLabel('Flapping after (drops)')).not.toHaveAttribute('aria-invalid', 'true');
    await shot('rules-saved');

    await page.reload();
    await expect(rules.getByLabel('Reconnect grace (seconds)')).toHaveValue('30', { timeout: 10_000 });
    await expect(rules.getByLabel('Flapping after (drops)')).toHaveValue('4');
    await expect(rules.getByLabel('Repeat drop grace (seconds)')).toHaveValue('90');
  });

  test("an agent's page states what a poll can miss; Watch closely is kept after a reload", async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, `#/agents/${AGENTS.connected}`);
    const monitor = page.getByRole('region', { name: 'Monitor' });
    await expect(monitor.getByText(/Drops shorter than about \d+ s can be missed at a \d+ s poll\./)).toBeVisible({
      timeout: 10_000,
    });
    const watch = monitor.getByRole('checkbox', { name: 'Watch closely' });
    await expect(watch).not.toBeChecked();
    await watch.check();
    await expect(monitor.getByText(/Polled every \d+ s: drops shorter than about \d+ s can be missed\./)).toBeVisible();
    await shot('watch-closely');
    await page.reload();
    await expect(
      page.getByRole('region', { name: 'Monitor' }).getByRole('checkbox', { name: 'Watch closely' }),
    ).toBeChecked({ timeout: 10_000 });
    await page.getByRole('region', { name: 'Monitor' }).getByRole('checkbox', { name: 'Watch closely' }).uncheck();
    await expect(
      page.getByRole('region', { name: 'Monitor' }).getByRole('checkbox', { name: 'Watch closely' }),
    ).not.toBeChecked();
  });

  test('a resolved incident moves to the history, filtered by kind and exported as CSV; the agent page shows its availability', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/alerts');
    const history = page.locator('section.card', { has: page.getByRole('heading', { name: /^History/ }) });
    const rows = history.getByRole('list', { name: 'Resolved incidents, latest first' }).getByRole('listitem');
    await expect(page.locator('ul.incidents li.incident').filter({ hasText: LABELS.unlinked })).toHaveCount(1, {
      timeout: 10_000,
    });
    await expect(rows.filter({ hasText: LABELS.unlinked })).toHaveCount(0);

    // The unlinked agent is paired: its incident resolves and joins the history.
    await hostCall(suite.ready, 'pairing.start', { teamId: suite.teamId, agentId: AGENTS.unlinked });
    await control(suite, `/agents/${AGENTS.unlinked}/scan`, { phone: '15550100002' });
    const row = rows.filter({ hasText: LABELS.unlinked });
    await expect(row).toHaveCount(1, { timeout: 10_000 });
    await expect(row).toContainText(/resolved after \d+ (s|min)/);
    await expect(page.locator('ul.incidents li.incident').filter({ hasText: LABELS.unlinked })).toHaveCount(0);
    await shot('history');

    // Filtered by agent and kind, then saved as CSV.
    await history.getByLabel('Agent').selectOption({ label: LABELS.unlinked });
    await history.getByLabel('Kind').selectOption('needs-scan');
    await expect(rows).toHaveCount(1);
    const downloading = page.waitForEvent('download');
    await history.getByRole('button', { name: 'Export CSV (1)' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^incident-history-.*\.csv$/);
    const csv = (await readFile(await download.path(), 'utf8')).split('\r\n');
    expect(csv[0]).toBe('team label,agent id,agent label,kind,opened at,ended at,duration seconds,title');
    expect(csv[1]).toMatch(
      new RegExp(
        `^[^,]+,${AGENTS.unlinked},${LABELS.unlinked},needs-scan,\\d{4}-\\d\\d-\\d\\dT[^,]+Z,\\d{4}-[^,]+Z,\\d+,`,
      ),
    );
    // The CSV's length is the one the row says.
    const seconds = Number(csv[1]!.split(',')[6]);
    const words =
      seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
    await expect(row).toContainText(`resolved after ${words}`);
    expect(csv.slice(2)).toEqual(['']);

    // Still there after a reload: the main side keeps the history.
    await page.reload();
    await expect(rows.filter({ hasText: LABELS.unlinked })).toHaveCount(1, { timeout: 10_000 });

    await open(page, suite, `#/agents/${AGENTS.connected}?team=${suite.teamId}`);
    const availability = page.getByRole('region', { name: 'Availability' });
    await expect(availability.locator('dt')).toHaveText(['24 h', '7 d', '30 d'], { timeout: 10_000 });
    // The share of the time watched that it was connected (the first test unlinked it for a while).
    await expect(availability.locator('dd').first()).toHaveText(
      /^\d+(\.\d)? % connected · observed \d+ (s|min) of 24 h$/,
    );
    await expect(availability.locator('dd').nth(1)).toHaveText(
      /^\d+(\.\d)? % connected · observed \d+ (s|min) of 7 d$/,
    );
    await shot('availability');
  });
});
