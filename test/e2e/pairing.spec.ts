// Pairing, in Chromium against `serve --emulator` (the demo team): start pairing for the unlinked
// agent → a QR image with the steps and a countdown; a scan (the emulator's control API) → the
// celebration with the phone number; a dropped link → "nothing to do" (no QR); a linked agent →
// its wa.me QR; and a service failure on start → a plain error with a way to try again.
import { expect, test } from '@playwright/test';
import { AGENTS, agentHash, control, LABELS, open, shooter, useDemoServe } from './support/kit';

const NEW_PHONE = '15550109999';

test.describe('pairing screen', () => {
  const suite = useDemoServe({ clearFaults: true });

  test('start pairing shows a QR with steps and a countdown; a scan is celebrated with the number', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, agentHash(suite, AGENTS.unlinked, 'pairing'));
    await expect(page.getByRole('heading', { level: 2, name: `Pair ${LABELS.unlinked}` })).toBeVisible();
    await expect(page.getByText('This number is not linked.')).toBeVisible({ timeout: 10_000 });
    await shot('needs-scan');

    await page.getByRole('button', { name: 'Start pairing' }).click();
    const qr = page.getByRole('img', { name: `Pairing QR code for ${LABELS.unlinked}` });
    await expect(qr).toBeVisible({ timeout: 10_000 });
    // A real image, drawn large.
    await expect.poll(async () => qr.evaluate((el) => (el as HTMLImageElement).naturalWidth ?? 0)).toBeGreaterThan(50);
    const box = await qr.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThanOrEqual(250);
    await expect(page.getByText('Settings → Linked devices → Link a device')).toBeVisible();
    await expect(page.getByRole('listitem').filter({ hasText: 'Point the phone at this QR code.' })).toBeVisible();
    const countdown = page.getByText(/next change in about \d+ s/);
    await expect(countdown).toBeVisible();
    const first = Number((await countdown.textContent())?.match(/about (\d+) s/)?.[1]);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(20);
    await expect.poll(async () => Number((await countdown.textContent())?.match(/about (\d+) s/)?.[1]), { timeout: 5_000 }).toBeLessThan(first);
    await expect(page.getByRole('status').filter({ hasText: 'QR code shown. Scan it with the phone.' })).toBeAttached();
    await shot('qr');

    // The phone scans the code.
    await control(suite, `/agents/${AGENTS.unlinked}/scan`, { phone: NEW_PHONE });
    const done = page.getByRole('heading', { level: 3, name: `Linked! ${LABELS.unlinked} now answers on +${NEW_PHONE}.` });
    await expect(done).toBeVisible({ timeout: 8_000 });
    await expect(done).toBeFocused();
    await expect(qr).toHaveCount(0);
    await expect(page.getByRole('img', { name: `QR code that opens a WhatsApp chat with +${NEW_PHONE}` })).toBeVisible();
    await expect(page.getByText(`https://wa.me/${NEW_PHONE}`)).toBeVisible();
    await shot('celebration');
  });

  test('a reconnecting agent needs nothing: no QR, an explanation', async ({ page }, testInfo) => {
    await control(suite, `/agents/${AGENTS.connected}/drop`, { seconds: 60 });
    await open(page, suite, agentHash(suite, AGENTS.connected, 'pairing'));
    await expect(page.getByText('The number is still linked; its connection is recovering.')).toBeVisible({ timeout: 10_000 });
    await expect(page.getByText(/Nothing to do, it recovers on its own\. No QR scan is needed\./)).toBeVisible();
    await expect(page.getByRole('button', { name: /Start pairing/ })).toHaveCount(0);
    await expect(page.getByRole('img', { name: /Pairing QR code/ })).toHaveCount(0);
    await shooter(page, testInfo)('reconnecting');
  });

  test('a linked agent shows its wa.me QR and no pairing', async ({ page }, testInfo) => {
    await open(page, suite, agentHash(suite, AGENTS.connected, 'pairing'));
    await expect(page.getByRole('heading', { level: 3, name: `Linked. ${LABELS.connected} now answers on +15550100001.` })).toBeVisible({ timeout: 10_000 });
    const wame = page.getByRole('img', { name: 'QR code that opens a WhatsApp chat with +15550100001' });
    await expect(wame).toBeVisible();
    await expect.poll(async () => wame.evaluate((el) => (el instanceof HTMLImageElement ? el.naturalWidth : el.getBoundingClientRect().width))).toBeGreaterThan(50);
    await expect(page.getByText('https://wa.me/15550100001')).toBeVisible();
    await expect(page.getByRole('button', { name: /Start pairing/ })).toHaveCount(0);
    await shooter(page, testInfo)('linked-wame');
  });

  test('a service failure on start is said plainly and can be retried', async ({ page }, testInfo) => {
    const shot = shooter(page, testInfo);
    await open(page, suite, agentHash(suite, AGENTS.unlinked, 'pairing'));
    await expect(page.getByText('This number is not linked.')).toBeVisible({ timeout: 10_000 });
    await control(suite, '/faults', { kind: '500', durationMs: 60_000, pathPrefix: `/api/v1/agents/${AGENTS.unlinked}/whatsapp/session` });
    await page.getByRole('button', { name: 'Start pairing' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The service had a problem' });
    await expect(alert).toBeVisible({ timeout: 20_000 });
    await expect(alert).toContainText('Try again in a minute.');
    await shot('start-failed');
    // The service is back: starting again works.
    await control(suite, '/faults', undefined, 'DELETE');
    await expect(page.getByRole('button', { name: /Start pairing/ })).toBeEnabled({ timeout: 10_000 });
    await page.getByRole('button', { name: /Start pairing/ }).click();
    await expect(page.getByRole('img', { name: `Pairing QR code for ${LABELS.unlinked}` })).toBeVisible({ timeout: 10_000 });
    await expect(alert).toHaveCount(0);
    await shot('retried');
  });
});
