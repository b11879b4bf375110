// Pictures and documents in a Messages thread, through the browser host and the emulator: a contact
// sends a picture, a document and a picture whose link has expired; the thread shows the picture as a
// thumbnail (fetched by the main side: the page never holds the key), opens it larger, offers the
// document with Save (a download in the browser) and says plainly that the expired picture is gone.
// axe finds nothing serious or critical; screenshots at 1280×800 and 1024×700, light and dark.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { AGENTS, control, hostCall, open, shooter, useDemoServe } from './support/kit';

const FROM = '+15550104444';

async function axeClean(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad,
    `axe on ${what}:\n${bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n')}`,
  ).toEqual([]);
}

test.describe('Messages: media', () => {
  const suite = useDemoServe();

  test('a picture as a thumbnail, opened larger; a document with Save; an expired picture said plainly', async ({
    page,
  }, testInfo) => {
    const { listenUrl } = await hostCall<{ listenUrl: string }>(suite.ready, 'tunnel.status');
    await hostCall(suite.ready, 'webhook.register', {
      teamId: suite.teamId,
      agentId: AGENTS.connected,
      publicUrl: `${listenUrl}/hooks/${AGENTS.connected}`,
    });
    const inbound = (body: Record<string, unknown>) =>
      control(suite, `/agents/${AGENTS.connected}/inbound`, { from: FROM, ...body });
    await inbound({ type: 'image', caption: 'The old shelf', id: 'wamid_e2e_old' });
    await control(suite, `/agents/${AGENTS.connected}/media/wamid_e2e_old/expire`);
    await inbound({ type: 'image', caption: 'Here is the shelf', id: 'wamid_e2e_img' });
    await inbound({ type: 'document', filename: 'delivery-note.pdf', id: 'wamid_e2e_doc' });

    await page.setViewportSize({ width: 1280, height: 800 });
    await open(
      page,
      suite,
      `#/messages?team=${encodeURIComponent(suite.teamId)}&agent=${AGENTS.connected}&with=${encodeURIComponent(FROM)}`,
    );
    const thread = page.getByRole('region', { name: /^Conversation with/ });
    const picture = thread.getByRole('img', { name: 'Picture: Here is the shelf' });
    await expect(picture).toBeVisible({ timeout: 15_000 });
    // Drawn from the bytes the main side fetched: the emulator's 120×80 sample, as a data: URL.
    expect(await picture.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.src.slice(0, 22)])).toEqual([
      120,
      'data:image/png;base64,',
    ]);
    await expect(thread.getByText('This picture is no longer available from the service.')).toBeVisible();
    await expect(thread.getByText('delivery-note.pdf')).toBeVisible();
    const save = thread.getByRole('button', { name: 'Save delivery-note.pdf' });
    await expect(save).toBeVisible();

    const shot = shooter(page, testInfo);
    for (const size of [
      { width: 1280, height: 800 },
      { width: 1024, height: 700 },
    ]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        await picture.scrollIntoViewIfNeeded();
        await shot(`thread-media-${size.width}x${size.height}-${scheme}`);
        await axeClean(page, `the thread at ${size.width}×${size.height}, ${scheme}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });

    // Larger, over the screen; Escape closes it.
    await thread.getByRole('button', { name: 'Open larger: Picture: Here is the shelf' }).click();
    const larger = page.getByRole('dialog', { name: 'The picture, larger' });
    await expect(larger).toBeVisible();
    await expect(larger.getByRole('button', { name: 'Close' })).toBeFocused();
    await shot('picture-larger-1280x800');
    await axeClean(page, 'the picture, larger');
    await page.keyboard.press('Escape');
    await expect(larger).toBeHidden();

    // Save: the browser downloads the file under its name.
    const download = page.waitForEvent('download');
    await save.click();
    expect((await download).suggestedFilename()).toBe('delivery-note.pdf');
    await expect(thread.getByRole('status').filter({ hasText: 'Downloaded delivery-note.pdf.' })).toBeVisible();
  });
});
