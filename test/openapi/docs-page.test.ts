/** GET /docs in a real browser: the reference renders every operation, from this host alone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { ROUTES } from '#functions/routes.ts';
import { request, startApi } from '../support/api.ts';
import { closeBrowsers, newPage, openBrowser, skipWithoutChromium } from '../support/browser.ts';

const skip = skipWithoutChromium('API reference');
let browser: BrowserContext;
let base: string;

beforeAll(async () => {
  if (skip) return;
  base = (await startApi()).url;
  browser = await openBrowser({ javaScriptEnabled: true });
});

afterAll(closeBrowsers);

describe('GET /docs', () => {
  it('is a public HTML page that carries its renderer inline', async () => {
    const response = await request('GET', '/docs');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('SwaggerUIBundle');
    expect(response.body).not.toMatch(/<(?:script|link)[^>]+(?:src|href)=/);
  });

  it.skipIf(skip)('renders every operation of the document in Chromium, fetching nothing from another host', async () => {
    const { page, problems } = await newPage(browser);
    const requested: string[] = [];
    await page.route('**/*', (route) => {
      requested.push(route.request().url());
      return new URL(route.request().url()).origin === base ? route.continue() : route.abort();
    });

    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });

    const operations = await page
      .locator('.opblock-summary')
      .evaluateAll((blocks) =>
        blocks.map(
          (block) =>
            `${block.querySelector('.opblock-summary-method')?.textContent} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect(operations.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    expect(await page.locator('.info .title').textContent()).toContain('Postlane API');
    expect(requested.filter((url) => new URL(url).origin !== base)).toEqual([]);
    expect(requested.map((url) => new URL(url).pathname)).toEqual(['/docs', '/openapi.json']);
    expect(problems).toEqual([]);
    await page.close();
  });

  it.skipIf(skip)('offers this server first, and "Try it out" sends the request to it', async () => {
    const { page, problems } = await newPage(browser);
    await page.goto(`${base}/docs`);
    const operation = page.locator('#operations-system-systemOpenapi');
    await operation.waitFor({ timeout: 20_000 });

    const firstServer = await page.locator('.servers select option').first().getAttribute('value');
    // The request still reaches the API and its status is shown; its body, the whole document again, is replaced by a
    // line: Swagger UI takes several seconds of CPU to highlight it, and what it shows proves nothing here.
    const answered: number[] = [];
    await page.route(`${base}/openapi.json`, async (route) => {
      const response = await route.fetch();
      answered.push(response.status());
      await route.fulfill({ response, body: '{"document": "answered by this server"}' });
    });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    await operation.locator('.request-url pre').waitFor({ timeout: 20_000 });

    expect(firstServer).toBe(base);
    expect(await operation.locator('.request-url pre').textContent()).toBe(`${base}/openapi.json`);
    expect(await operation.locator('.live-responses-table .response .response-col_status').first().textContent()).toContain('200');
    expect(answered).toEqual([200]);
    // Left open this long, Chromium also asks for /favicon.ico, which the API has not (404).
    expect(problems.filter((problem) => !problem.includes('status of 404'))).toEqual([]);
    await page.close();
  });
});
