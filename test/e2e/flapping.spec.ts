// A flapping number, as the on-call engineer sees it in the app (Chromium against `serve --emulator`,
// polled every second): six drops in half a minute give at most one notice for that agent, which
// turns into "flapping" in place, never a "reconnecting"/"back to normal" pair per drop; later drops
// of the flapping agent add none. Every notice title shown is recorded, short-lived ones included.
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, control, LABELS, open, shooter, useServe } from './support/kit';

/** Every notice title the page shows from now on, in order of first sight (transient ones included). */
async function recordNotices(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __notices: string[] };
    w.__notices = [];
    const seen = () => {
      for (const el of document.querySelectorAll('.toasts li.toast .toast-title')) {
        const text = el.textContent ?? '';
        if (text && w.__notices.at(-1) !== text && !w.__notices.includes(text)) w.__notices.push(text);
      }
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
    seen();
  });
  return () => page.evaluate(() => (window as unknown as { __notices: string[] }).__notices);
}

/** The health badge of the agent row labelled `label`, every change the page shows from now on. */
async function recordHealth(page: Page, label: string): Promise<() => Promise<string[]>> {
  await page.evaluate((label) => {
    const w = window as unknown as { __health: string[] };
    w.__health = [];
    const seen = () => {
      const row = [...document.querySelectorAll('ul.agents > li')].find((el) => el.textContent?.includes(label));
      const badge = row?.querySelector('.badge');
      const health = badge
        ? [...badge.classList].find((c) => c.startsWith('badge-'))?.slice('badge-'.length)
        : undefined;
      if (health && w.__health.at(-1) !== health) w.__health.push(health);
    };
    new MutationObserver(seen).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ['class'],
    });
    seen();
  }, label);
  return () => page.evaluate(() => (window as unknown as { __health: string[] }).__health);
}

test.describe('a flapping number', () => {
  const suite = useServe(['--emulator', '--poll-sec', '1', '--fast-poll-sec', '1']);

  test('six drops in half a minute: one notice that becomes "flapping", no toast per drop', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    const shot = shooter(page, testInfo);
    await open(page, suite, '#/');
    const row = page.locator('ul.agents > li').filter({ hasText: LABELS.connected });
    await expect(row).toContainText('Connected', { timeout: 15_000 });
    const notices = await recordNotices(page);
    const ofAgent = async () => (await notices()).filter((t) => t.includes(`${LABELS.connected} (`));
    const health = await recordHealth(page, LABELS.connected);
    const drops = async () => (await health()).filter((h) => h === 'reconnecting').length;
    // A drop, then the page showing the agent reconnecting and connected again.
    const dropAndBack = async (seconds: number) => {
      const before = await drops();
      await control(suite, `agents/${AGENTS.connected}/drop`, { seconds });
      await expect.poll(drops, { timeout: 10_000 }).toBe(before + 1);
      await expect.poll(async () => (await health()).at(-1), { timeout: 10_000 }).toBe('connected');
    };

    // Six 2-s drops in a row, each seen by the page before the next.
    for (let i = 0; i < 6; i++) await dropAndBack(2);
    // The notice of the drop, re-worded in place once flapping is declared (what was shown is read
    // from the record, transient words included).
    await expect.poll(async () => (await ofAgent()).some((t) => /flapping/i.test(t)), { timeout: 10_000 }).toBe(true);
    const duringBurst = await ofAgent();
    // At most one notice before flapping was declared, and no "back to normal" after any drop.
    expect(duringBurst.filter((t) => !/flapping/i.test(t)).length, duringBurst.join(' | ')).toBeLessThanOrEqual(1);
    expect(duringBurst.filter((t) => /flapping/i.test(t)).length, duringBurst.join(' | ')).toBe(1);
    expect(
      duringBurst.some((t) => /back to normal/i.test(t)),
      duringBurst.join(' | '),
    ).toBe(false);
    await shot('flapping');

    // Later drops of the flapping agent: nothing new.
    for (let i = 0; i < 2; i++) await dropAndBack(3);
    expect(await ofAgent()).toEqual(duringBurst);
  });
});
