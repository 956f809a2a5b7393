import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildExplorerAssets } from '../../src/docs/graphiql/build-assets';
import { seedDemo } from '../../src/seed/seed-demo';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * End to end: the gateway on a fresh embedded database with the demo company, GraphiQL in headless
 * Chromium, the token pasted into the header editor, the default query run. Chromium is Debian's
 * (`CHROMIUM_PATH`, default /usr/bin/chromium). The screenshot goes to `SCREENSHOT_PATH`
 * (default test-results/graphiql.png; the README's copy is test/e2e/graphiql.png).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = resolve(process.env.SCREENSHOT_PATH ?? 'test-results/graphiql.png');
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * The text of a CodeMirror 5 editor (it keeps its editor object on the wrapper element; reading it
 * avoids scraping virtualised lines). Runs in the page; a function, not a string, since the page's
 * CSP forbids eval.
 */
function editorValue(selector: string): string {
  const element = (globalThis as any).document.querySelector(selector);
  return element?.CodeMirror ? String(element.CodeMirror.getValue()) : '';
}
const RESULT_EDITOR = '.graphiql-response .CodeMirror';
const HEADER_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

describe('GraphiQL in a browser', () => {
  let gateway: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    await buildExplorerAssets();
    gateway = await startGateway();
    await seedDemo();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('runs the default query with the pasted token and shows the demo pipelines, all from localhost', async () => {
    const labels: string[] = (await gateway.request('GET', '/pipelines')).body.pipeline_definitions.map((d: { label: string }) => d.label);
    expect(labels.length).toBeGreaterThan(0);

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The one expected complaint: the schema read before a token is pasted answers 401.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`);
    });

    await page.goto(`${gateway.url}/graphiql`);
    await page.waitForSelector(HEADER_EDITOR);

    // Paste the token over the placeholder in the header editor, as a person would.
    await page.click(HEADER_EDITOR);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${gateway.adminToken}` }, null, 2));
    expect(JSON.parse(await page.evaluate(editorValue, HEADER_EDITOR))).toEqual({ Authorization: `Bearer ${gateway.adminToken}` });

    // With the token in place the schema loads: the docs explorer lists the root types.
    await page.waitForSelector('.graphiql-doc-explorer-root-type, .graphiql-doc-explorer-content a', { timeout: 30_000 });

    await page.click('.graphiql-execute-button');
    // Locators wait without eval (which the page's CSP forbids, as it should).
    await page.locator('.graphiql-response').getByText('"definitions"').first().waitFor({ timeout: 60_000 });
    const result = JSON.parse(await page.evaluate(editorValue, RESULT_EDITOR));
    expect(result.errors).toBeUndefined();
    const definitions = result.data.snapshot.definitions as Array<{ label: string; stages: unknown[]; pipelines: Array<{ metrics: unknown[] }> }>;
    expect(definitions.map((d) => d.label).sort()).toEqual([...labels].sort());
    for (const definition of definitions) {
      expect(definition.stages.length).toBeGreaterThan(0);
      expect(definition.pipelines.length).toBeGreaterThan(1);
    }
    expect(definitions.some((d) => d.pipelines.some((p) => p.metrics.length > 0))).toBe(true);
    // And a person sees it: the first label is on screen in the result panel.
    await expect(page.locator('.graphiql-response').getByText(labels[0]!, { exact: false }).first().isVisible()).resolves.toBe(true);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    const origin = new URL(gateway.url).origin;
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
