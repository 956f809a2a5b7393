import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildExplorerAssets } from '../../src/explorer/build-assets';
import { startEntry, type StartedEntry } from './start-entry';

/**
 * End to end, as the README tour goes: the real entry (`src/index.ts`) starts on a fresh embedded
 * database, seeds the demo company and prints its URL, the explorer's URL and a generated admin
 * token; GraphiQL opens in headless Chromium (Debian's: `CHROMIUM_PATH`, default
 * /usr/bin/chromium) and is used as a person would: read the first view, paste the printed token
 * into the header editor, run the default query, reload. The steps share one page and run in
 * order. Screenshots go to `SCREENSHOT_DIR` (default test-results/): `graphiql-first-view.png`
 * and `graphiql.png` (the answered query); the copies the README shows are in test/e2e/, written
 * with `SCREENSHOT_DIR=test/e2e`.
 */
const ROOT = resolve(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = resolve(process.env.SCREENSHOT_DIR ?? join(ROOT, 'test-results'));
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** A common laptop window, where the screenshots are taken, and a smaller one. */
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 1280, height: 800 };

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADER_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESULT_EDITOR = '.graphiql-response .CodeMirror';
const DOCS_LOADED = '.graphiql-doc-explorer-root-type';
/** What GraphiQL shows when the schema read fails or never happened; none of it before a token. */
const ERROR_TEXTS = [
  'Error fetching schema',
  'No GraphQL schema available',
  'UNAUTHENTICATED',
  'Authentication required',
];

/**
 * The text of a CodeMirror 5 editor (it keeps its editor object on the wrapper element; reading it
 * avoids scraping virtualised lines). Runs in the page; a function, not a string, since the page's
 * CSP forbids eval.
 */
function editorValue(selector: string): string {
  const element = (globalThis as any).document.querySelector(selector);
  return element?.CodeMirror ? String(element.CodeMirror.getValue()) : '';
}

/** Lines of a CodeMirror editor whose text runs past its visible right edge (or its scrollbar). Runs in the page. */
function linesCutOff(selector: string): string[] {
  const document = (globalThis as any).document;
  const editor = document.querySelector(selector);
  const scrollbar = editor.querySelector('.CodeMirror-vscrollbar');
  const right =
    scrollbar && scrollbar.offsetWidth > 0
      ? scrollbar.getBoundingClientRect().left
      : editor.getBoundingClientRect().right;
  return [...editor.querySelectorAll('.CodeMirror-line > span')]
    .filter((span: any) => span.getBoundingClientRect().right > right + 0.5)
    .map((span: any) => String(span.textContent));
}

/** True when the element is entirely inside its scrolling container and the window, nothing to scroll to. Runs in the page. */
function wholeInView(args: { selector: string; container: string }): boolean {
  const document = (globalThis as any).document;
  const box = document.querySelector(args.selector).getBoundingClientRect();
  const frame = document.querySelector(args.container).getBoundingClientRect();
  const window = (globalThis as any).window;
  return (
    box.top >= frame.top &&
    box.bottom <= Math.min(frame.bottom, window.innerHeight) &&
    box.left >= frame.left &&
    box.right <= Math.min(frame.right, window.innerWidth)
  );
}

/** What GraphiQL keeps of its tabs (query, headers...) in the page's local storage. Runs in the page. */
function storedTabs(): string {
  return String((globalThis as any).localStorage.getItem('graphiql:tabState'));
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`Expected the condition to hold within ${timeoutMs} ms, it did not`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Replaces the header editor's text by keyboard, the way a paste does. */
async function typeHeaders(page: Page, headers: Record<string, string>): Promise<void> {
  await page.click(HEADER_EDITOR);
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(JSON.stringify(headers, null, 2));
}

async function expectNoErrorShown(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  for (const error of ERROR_TEXTS) expect(text).not.toContain(error);
  expect(await page.evaluate(editorValue, RESULT_EDITOR)).toBe('');
  await expect(page.locator('.graphiql-doc-explorer-error').count()).resolves.toBe(0);
}

/** Runs the query in the editor and waits for the result pane to hold the snapshot's definitions. */
async function runDefaultQuery(page: Page): Promise<{
  data: {
    snapshot: {
      definitions: Array<{
        label: string;
        stages: unknown[];
        pipelines: Array<{ metrics: unknown[] }>;
      }>;
    };
  };
  errors?: unknown;
}> {
  await page.click('.graphiql-execute-button');
  // Locators wait without eval (which the page's CSP forbids, as it should).
  await page
    .locator('.graphiql-response')
    .getByText('"definitions"')
    .first()
    .waitFor({ timeout: 60_000 });
  return JSON.parse(await page.evaluate(editorValue, RESULT_EDITOR));
}

describe('GraphiQL in a browser', () => {
  let dataDir: string;
  let gateway: StartedEntry;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let labels: string[];
  const requested: string[] = [];
  const problems: string[] = [];
  /** While true, the browser's own "401" console line is expected (a wrong token was pasted). */
  let expect401 = false;

  beforeAll(async () => {
    await buildExplorerAssets();
    dataDir = mkdtempSync(join(tmpdir(), 'gw-e2e-'));
    gateway = await startEntry(dataDir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: LAUNCH_ARGS,
    });
    context = await browser.newContext({ viewport: WIDE });
    page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !(expect401 && /status of 401/.test(message.text())))
        problems.push(`console: ${message.text()}`);
    });
    mkdirSync(SCREENSHOT_DIR, { recursive: true });

    expect(gateway.output()).toMatch(/demo company/i);
    const pipelines = await fetch(`${gateway.url}/pipelines`, {
      headers: { authorization: `Bearer ${gateway.token}` },
    });
    labels = (
      (await pipelines.json()) as { pipeline_definitions: Array<{ label: string }> }
    ).pipeline_definitions.map((d) => d.label);
    expect(labels.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    if (gateway) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens on what to do: paste the token; no request to /graphql and no error before there is one', async () => {
    await page.goto(gateway.explorerUrl, { waitUntil: 'networkidle' });
    await page.waitForSelector(HEADER_EDITOR);
    await page.getByRole('heading', { name: 'Paste your token' }).waitFor();

    expect(requested.filter((url) => new URL(url).pathname === '/graphql')).toEqual([]);
    await expectNoErrorShown(page);
    expect(await page.evaluate(editorValue, HEADER_EDITOR)).toContain(
      '<paste the token printed at start>',
    );
    expect(await page.evaluate(editorValue, QUERY_EDITOR)).toMatch(/^# .*\n# 1\. Paste the token/);

    // The how-to (the query's comment, the placeholder, the panel) is whole on screen, at both widths.
    for (const viewport of [NARROW, WIDE]) {
      await page.setViewportSize(viewport);
      await expect(page.evaluate(linesCutOff, QUERY_EDITOR)).resolves.toEqual([]);
      await expect(page.evaluate(linesCutOff, HEADER_EDITOR)).resolves.toEqual([]);
      await expect(
        page.evaluate(wholeInView, { selector: '.explorer-start', container: '.graphiql-plugin' }),
      ).resolves.toBe(true);
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'graphiql-first-view.png') });
  });

  it('says in words why a wrong token gets no schema, then reads it once the right one is pasted', async () => {
    expect401 = true;
    await typeHeaders(page, { Authorization: 'Bearer not-the-token' });
    // The panel says what happened, in place of the docs' red "Error fetching schema".
    await page.getByRole('heading', { name: 'Token not accepted' }).waitFor();
    await expect(page.locator('.explorer-start').innerText()).resolves.toContain(
      'Authentication required',
    );
    await expect(page.locator('.graphiql-doc-explorer-error').count()).resolves.toBe(0);
    expect(await page.evaluate(editorValue, RESULT_EDITOR)).toContain('UNAUTHENTICATED'); // the gateway's answer, as it came

    await typeHeaders(page, { Authorization: `Bearer ${gateway.token}` });
    expect(JSON.parse(await page.evaluate(editorValue, HEADER_EDITOR))).toEqual({
      Authorization: `Bearer ${gateway.token}`,
    });
    // The docs open in place of the getting-started panel and list the root types.
    await page.waitForSelector(DOCS_LOADED, { timeout: 30_000 });
    await expect(page.locator('.explorer-start').count()).resolves.toBe(0);
    await expectNoErrorShown(page);
    expect401 = false;
  });

  it('runs the default query with the pasted token and shows the demo pipelines', async () => {
    const result = await runDefaultQuery(page);
    expect(result.errors).toBeUndefined();
    const definitions = result.data.snapshot.definitions;
    expect(definitions.map((d) => d.label).sort()).toEqual([...labels].sort());
    for (const definition of definitions) {
      expect(definition.stages.length).toBeGreaterThan(0);
      expect(definition.pipelines.length).toBeGreaterThan(1);
    }
    expect(definitions.some((d) => d.pipelines.some((p) => p.metrics.length > 0))).toBe(true);
    // And a person sees it: the first label is on screen in the result panel.
    await expect(
      page
        .locator('.graphiql-response')
        .getByText(labels[0]!, { exact: false })
        .first()
        .isVisible(),
    ).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'graphiql.png') });
  });

  it('keeps the headers across reloads: the schema loads and the query runs without pasting again', async () => {
    // GraphiQL stores the headers a moment after the last edit; a person reloads later than that.
    await waitUntil(async () => (await page.evaluate(storedTabs)).includes(gateway.token), 10_000);
    for (let reload = 1; reload <= 2; reload++) {
      await page.reload({ waitUntil: 'networkidle' });
      await page.waitForSelector(HEADER_EDITOR);
      expect(JSON.parse(await page.evaluate(editorValue, HEADER_EDITOR))).toEqual({
        Authorization: `Bearer ${gateway.token}`,
      });
      await page.waitForSelector(DOCS_LOADED, { timeout: 30_000 });
      await expectNoErrorShown(page);
      await expect(page.locator('.graphiql-tab').count()).resolves.toBe(0); // one session, not a new tab per load
      const result = await runDefaultQuery(page);
      expect(result.errors).toBeUndefined();
      expect(result.data.snapshot.definitions.length).toBe(labels.length);
    }
  });

  it('loaded nothing from anywhere but the gateway, and logged no error', () => {
    const origin = new URL(gateway.url).origin;
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
