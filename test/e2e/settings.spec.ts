// Settings, in Chromium against `serve --emulator` (the demo team): an agent's channel switches
// show what the service's reply says (and a failed change is said and not shown as done); the
// teams list shows only the key hint; a team is edited in place (a wrong key refused beside its
// field, a new name keeping the id); the theme applies at once and stays; a bad number is
// refused; and the keyboard reaches the actions with a visible focus ring.
import { expect, test, type Page } from '@playwright/test';
import {
  AGENTS,
  agentHash,
  control,
  DEMO_KEY,
  hostCall,
  noSeriousAxe,
  open,
  shooter,
  useDemoServe,
} from './support/kit';

async function focusedOutline(page: Page): Promise<{ tag: string; text: string; outline: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const cs = el ? getComputedStyle(el) : null;
    const label = el instanceof HTMLInputElement ? el.labels?.[0]?.textContent : null;
    return {
      tag: el?.tagName ?? '',
      text: (el?.getAttribute('aria-label') ?? label ?? el?.textContent ?? '').trim(),
      outline: cs ? `${cs.outlineStyle} ${cs.outlineWidth}` : '',
    };
  });
}

/** Press Tab until the focused element's name matches, at most `max` times. */
async function tabTo(page: Page, name: RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (name.test((await focusedOutline(page)).text)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

test.describe('settings screens', () => {
  const suite = useDemoServe({ clearFaults: true });

  test('channel switches change and show what the service replied', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, agentHash(suite, AGENTS.connected, 'settings'));
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Channel switches' }) });
    const status = card.getByRole('status');
    await expect(status).toHaveText(
      'The service has no way to read these: each is unknown until it is changed here (it may have been set elsewhere).',
    );
    const groups = card.getByRole('switch', { name: /Answer in groups/ });
    const read = card.getByRole('switch', { name: /Send read receipts/ });
    const delivery = card.getByRole('switch', { name: /Deliver receipt events/ });
    for (const s of [groups, read, delivery]) await expect(s).toHaveJSProperty('indeterminate', true);
    await expect(card.getByText('Answer in groups (unknown until changed here)')).toBeVisible();
    await shot('defaults');

    // A switch shows the service's reply, not the click: click, then wait for the reply.
    await groups.click();
    await expect(status).toHaveText('The service now reports: groups on, read receipts off, delivery receipts off.');
    await expect(groups).toBeChecked();
    await expect(card.getByText('Answer in groups (on)')).toBeVisible();
    await read.click();
    await expect(status).toHaveText('The service now reports: groups on, read receipts on, delivery receipts off.');
    await delivery.click();
    await expect(status).toHaveText('The service now reports: groups on, read receipts on, delivery receipts on.');
    await groups.click();
    await expect(status).toHaveText('The service now reports: groups off, read receipts on, delivery receipts on.');
    // The emulator holds the same values.
    const state = await control<{ agents: { agentId?: string; id?: string; settings?: Record<string, unknown> }[] }>(
      suite,
      '/state',
      undefined,
      'GET',
    );
    const emuAgent = state.agents.find((a) => (a.agentId ?? a.id) === AGENTS.connected);
    expect(emuAgent?.settings).toMatchObject({ groups: false });
    await shot('changed');

    // Error path: the service fails; the switch is not shown as changed and the error is said.
    await control(suite, '/faults', {
      kind: '500',
      durationMs: 60_000,
      pathPrefix: `/api/v1/agents/${AGENTS.connected}/whatsapp/settings`,
    });
    await read.click();
    await expect(card.getByRole('alert')).toContainText('The service had a problem', { timeout: 20_000 });
    await expect(read).toBeChecked();
    await expect(status).toHaveText('The service now reports: groups off, read receipts on, delivery receipts on.');
    await shot('failed');
  });

  test('teams list shows only the key hint, never the key', async ({ page }, testInfo) => {
    await open(page, suite, '#/settings');
    const team = page.getByRole('article', { name: /^Team / });
    await expect(team).toHaveCount(1, { timeout: 10_000 });
    await expect(team.locator('dt:text-is("API key") + dd')).toHaveText(`…${DEMO_KEY.slice(-4)}`);
    for (const id of Object.values(AGENTS)) await expect(team).toContainText(`(${id})`);
    await shooter(page, testInfo)('teams');
    const text = await page.locator('body').innerText();
    expect(text).not.toContain(DEMO_KEY);
    expect(await page.content()).not.toContain(DEMO_KEY);
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(storage).not.toContain(DEMO_KEY);
  });

  test('a team is edited in place: a wrong key is refused beside its field, a new name keeps the id; axe', async ({
    page,
  }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/settings');
    const team = page.getByRole('article', { name: /^Team / });
    await expect(team).toHaveCount(1, { timeout: 10_000 });
    const label = (await team.getByRole('heading', { level: 4 }).textContent()) ?? '';
    await team.getByRole('button', { name: `Edit team ${label}` }).click();
    const form = team.getByRole('form', { name: `Edit team ${label}` });
    await form.getByLabel('New API key (optional)').fill('wrong-key-0123456789');
    await form.getByRole('button', { name: 'Save team' }).click();
    await expect(form.getByLabel('New API key (optional)')).toHaveAttribute('aria-invalid', 'true', {
      timeout: 10_000,
    });
    await expect(form).toContainText('rejected');
    await noSeriousAxe(page);
    await shot('team-edit-refused');

    await form.getByLabel('New API key (optional)').fill('');
    await form.getByLabel('Team name').fill('Demo, renamed');
    await form.getByRole('button', { name: 'Save team' }).click();
    const renamed = page.getByRole('article', { name: 'Team Demo, renamed' });
    await expect(renamed).toBeVisible({ timeout: 10_000 });
    await expect(renamed.locator('dt:text-is("API key") + dd')).toHaveText(`…${DEMO_KEY.slice(-4)}`);
    const teams = await hostCall<Array<{ teamId: string; label: string }>>(suite.ready, 'teams.list');
    expect(teams.map((t) => [t.teamId, t.label])).toEqual([[suite.teamId, 'Demo, renamed']]);
    await noSeriousAxe(page);
    await shot('team-edited');
    await hostCall(suite.ready, 'teams.update', { teamId: suite.teamId, label });
  });

  test('theme switch applies light and dark at once and keeps the choice', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/settings');
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const theme = page.getByRole('group', { name: 'Theme' });
    await theme.getByRole('radio', { name: 'Dark' }).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect.poll(bg).toBe('rgb(23, 24, 26)');
    await shot('dark');
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(theme.getByRole('radio', { name: 'Dark' })).toBeChecked({ timeout: 10_000 });
    expect(await bg()).toBe('rgb(23, 24, 26)');
    await theme.getByRole('radio', { name: 'Light' }).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    await expect.poll(bg).toBe('rgb(247, 247, 245)');
    // Light wins even when the system prefers dark.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await bg()).toBe('rgb(247, 247, 245)');
    await shot('light');
    await theme.getByRole('radio', { name: 'Same as the system' }).check();
    await expect.poll(bg).toBe('rgb(23, 24, 26)');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(bg).toBe('rgb(247, 247, 245)');
  });

  test('a poll interval out of range is refused and what was typed stays', async ({ page }, testInfo) => {
    await open(page, suite, '#/settings');
    const input = page.getByRole('textbox', { name: 'Poll interval (seconds)' });
    await expect(input).toBeVisible({ timeout: 10_000 });
    const before = await input.inputValue();
    await input.fill('2');
    await page.getByRole('button', { name: 'Save Poll interval (seconds)' }).click();
    await expect(
      page.getByRole('alert').filter({ hasText: 'Poll interval (seconds) must be between 5 and 3600.' }),
    ).toBeVisible();
    await expect(input).toHaveValue('2');
    await expect(input).toHaveAttribute('aria-invalid', 'true');
    await shooter(page, testInfo)('poll-invalid');
    await page.reload();
    await expect(input).toHaveValue(before, { timeout: 10_000 });
  });

  test('the keyboard reaches the actions, with the focus visible', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, agentHash(suite, AGENTS.connected, 'settings'));
    await expect(page.getByRole('switch', { name: /Answer in groups/ })).toBeVisible();
    // A fresh load of this screen (the token stays for the tab): the first stop is the skip link.
    await page.reload();
    await expect(page.getByRole('switch', { name: /Answer in groups/ })).toBeVisible({ timeout: 10_000 });
    await page.keyboard.press('Tab');
    expect((await focusedOutline(page)).text).toBe('Skip to content');
    await expect(page.getByRole('link', { name: 'Skip to content' })).toBeInViewport();
    await tabTo(page, /^Answer in groups/);
    let f = await focusedOutline(page);
    expect(f.tag).toBe('INPUT');
    expect(f.outline).toMatch(/^solid [1-9]/);
    await page.keyboard.press('Space');
    await expect(page.getByRole('switch', { name: /Answer in groups/ })).toBeChecked();
    await expect(page.locator('section.card').getByRole('status')).toContainText('groups on');
    await shot('switch-by-keyboard');

    await page.evaluate(() => (window.location.hash = '#/settings'));
    await expect(page.getByRole('heading', { level: 2, name: 'Settings' })).toBeVisible();
    await tabTo(page, /^Add a team…$/);
    f = await focusedOutline(page);
    expect(f.tag).toBe('BUTTON');
    expect(f.outline).toMatch(/^solid [1-9]/);
    await shot('focus-add-team');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Add a team' })).toBeVisible();
    await tabTo(page, /^Export diagnostics$/);
    expect((await focusedOutline(page)).outline).toMatch(/^solid [1-9]/);
  });
});
