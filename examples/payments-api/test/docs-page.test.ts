import { existsSync, mkdirSync } from 'node:fs';
import { listen, type RunningServer } from '@resourceful/test-support';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { paymentsApi } from '../src/description/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === 'true') {
  throw new Error(
    `The documentation page test needs Chromium at ${CHROMIUM} under CI (apt-get install chromium).`,
  );
}
if (!available) console.warn(`Skipping the documentation page test: no Chromium at ${CHROMIUM}.`);

/** Screenshots are kept for a person to look at; the folder is git-ignored. */
const ARTIFACTS = new URL('../test-artifacts/', import.meta.url);

describe.skipIf(!available)('the documentation page at /v1/docs, in headless Chromium', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await listen(createApp());
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists every operation of the example, from assets the service serves itself', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const outside: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(server.url)) outside.push(req.url());
    });
    await page.goto(`${server.url}/v1/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    const methods = await page.locator('.opblock-summary-method').allTextContents();
    const listed = operations.map((path, i) => `${methods[i]} ${path.replace(/\u200b/g, '')}`);
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete']
        .filter((verb) => verb in item)
        .map((verb) => `${verb.toUpperCase()} ${path}`),
    );
    expect(documented.length).toBeGreaterThan(30);
    expect([...listed].sort()).toEqual(documented.sort());
    for (const resource of paymentsApi.resources) {
      expect(
        listed.some((entry) => entry.includes(`/v1${resource.path}`)),
        resource.name,
      ).toBe(true);
    }
    expect(await page.locator('.info .title').textContent()).toContain('Resourceful payments API');
    expect(outside).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('docs-page.png', ARTIFACTS).pathname, fullPage: false });
  });

  it('shows page_token on the card list of a service with continuation tokens, and not without', async () => {
    const withTokens = await listen(
      createApp({ pageTokenSecrets: ['docs-page-test-secret-0123456789abcdef'] }),
    );
    try {
      const parametersOf = async (url: string) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
        // Deep links open the operation: its parameters table is rendered.
        await page.goto(`${url}/v1/docs#/CreditCard/listCreditCard`);
        const names = page.locator('#operations-CreditCard-listCreditCard .parameter__name');
        await names.first().waitFor({ timeout: 15_000 });
        const listed = (await names.allTextContents()).map((name) => name.replace(/\W+$/, ''));
        return { page, listed };
      };
      const tokens = await parametersOf(withTokens.url);
      expect(tokens.listed).toEqual(expect.arrayContaining(['page', 'offset', 'page_token']));
      mkdirSync(ARTIFACTS, { recursive: true });
      await tokens.page.screenshot({
        path: new URL('docs-page-page-token.png', ARTIFACTS).pathname,
        fullPage: false,
      });
      const offsets = await parametersOf(server.url);
      expect(offsets.listed).toEqual(expect.arrayContaining(['page', 'offset']));
      expect(offsets.listed).not.toContain('page_token');
    } finally {
      await withTokens.close();
    }
  });
});
