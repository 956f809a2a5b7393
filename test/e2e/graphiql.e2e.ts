import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildExplorerAssets } from '../../src/docs/graphiql/build-assets';

/**
 * End to end, as the README tour goes: the real entry (`src/index.ts`) starts on a fresh embedded
 * database, seeds the demo company and prints its URL, the explorer's URL and a generated admin
 * token; GraphiQL opens in headless Chromium, the printed token is pasted into the header editor
 * and the default query runs. Chromium is Debian's (`CHROMIUM_PATH`, default /usr/bin/chromium).
 * The screenshot goes to `SCREENSHOT_PATH` (default test-results/graphiql.png; the README shows
 * the copy committed as test/e2e/graphiql.png).
 */
const ROOT = resolve(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = resolve(process.env.SCREENSHOT_PATH ?? join(ROOT, 'test-results', 'graphiql.png'));
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

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** What the entry printed: the base URL, the explorer URL and the generated admin token. */
  url: string;
  explorerUrl: string;
  token: string;
}

/** Runs `src/index.ts` as `npm start` would (transpiled on the fly) and reads what it prints. */
async function startEntry(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, ['-r', './test/helpers/ts-register.js', 'src/index.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'true', ADMIN_TOKEN: '', JWT_SECRET: '', MONGODB_URI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // The entry prints the generated token before its last line, the "listening" one.
  const printed = /Generated admin token \(kept in .*\): (\S+)[\s\S]*listening on (http:\/\/\S+) .*explorer at (http:\/\/\S+?)\)/;
  const match = await new Promise<RegExpExecArray>((done, fail) => {
    const onData = (): void => {
      const found = printed.exec(output);
      if (found) {
        child.stdout!.off('data', onData);
        done(found);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => fail(new Error(`the entry exited with ${code} before printing its URL and token:\n${output}`)));
  });
  return { child, output: () => output, exited, url: match[2]!, explorerUrl: match[3]!, token: match[1]! };
}

describe('GraphiQL in a browser', () => {
  let dataDir: string;
  let gateway: Started;
  let browser: Browser;

  beforeAll(async () => {
    await buildExplorerAssets();
    dataDir = mkdtempSync(join(tmpdir(), 'gw-e2e-'));
    gateway = await startEntry(dataDir);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    if (gateway) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the default query with the pasted token and shows the demo pipelines, all from localhost', async () => {
    expect(gateway.output()).toContain('loaded the demo company');
    const pipelines = await fetch(`${gateway.url}/pipelines`, { headers: { authorization: `Bearer ${gateway.token}` } });
    const labels: string[] = ((await pipelines.json()) as { pipeline_definitions: Array<{ label: string }> }).pipeline_definitions.map((d) => d.label);
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

    await page.goto(gateway.explorerUrl);
    await page.waitForSelector(HEADER_EDITOR);

    // Paste the token over the placeholder in the header editor, as a person would.
    await page.click(HEADER_EDITOR);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${gateway.token}` }, null, 2));
    expect(JSON.parse(await page.evaluate(editorValue, HEADER_EDITOR))).toEqual({ Authorization: `Bearer ${gateway.token}` });

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
