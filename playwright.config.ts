import { defineConfig } from '@playwright/test';

// Browser tests run in Debian's Chromium (never `npx playwright install`).
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export default defineConfig({
  outputDir: 'test-results',
  // The receiver's default port is held for the whole run: no test may need it free.
  globalSetup: './test/helpers/default-port-held.ts',
  timeout: 60_000,
  retries: 0,
  workers: 1,
  projects: [
    {
      name: 'e2e',
      testDir: 'test/e2e',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: chromiumPath,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-dev-shm-usage',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
          ],
        },
        screenshot: 'only-on-failure',
        trace: 'retain-on-failure',
      },
    },
    { name: 'electron', testDir: 'test/electron' },
  ],
});
