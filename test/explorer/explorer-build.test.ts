import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAssetManifest } from '../../src/explorer/asset-manifest';
import { buildExplorerAssets, explorerInputsHash } from '../../src/explorer/build-assets';
import { extractDataUrls } from '../../src/explorer/extract-data-urls';
import { explorerAssetDir } from '../../src/explorer/paths';
import { renderExplorerPage } from '../../src/explorer/explorer-page';

describe('extractDataUrls', () => {
  it('moves base64 and percent-encoded data URLs into named files', () => {
    const font = Buffer.from('wOF2 font bytes').toString('base64');
    const css = `@font-face{src:url(data:font/woff2;base64,${font}) format("woff2")}.i{background:url("data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E")}`;
    const { css: out, files } = extractDataUrls(css);
    expect(files.map((f) => f.name)).toEqual([
      expect.stringMatching(/^[0-9a-f]{16}\.woff2$/),
      expect.stringMatching(/^[0-9a-f]{16}\.svg$/),
    ]);
    expect(files[0]!.contents.toString()).toBe('wOF2 font bytes');
    expect(files[1]!.contents.toString()).toBe('<svg/>');
    expect(out).toBe(
      `@font-face{src:url(./${files[0]!.name}) format("woff2")}.i{background:url(./${files[1]!.name})}`,
    );
  });

  it('refuses a data URL type it would serve wrongly', () => {
    expect(() => extractDataUrls('a{b:url(data:application/x-foo;base64,AAAA)}')).toThrow(
      /got application\/x-foo/,
    );
  });
});

describe('renderExplorerPage', () => {
  it('keeps the config block closed whatever the query contains', () => {
    const page = renderExplorerPage(
      {
        inputsHash: 'h',
        script: 'explorer-a.js',
        stylesheet: 'explorer-b.css',
        icon: 'favicon-c.svg',
        files: [],
      },
      {
        endpoint: '/graphql',
        defaultQuery: '# </script><script>alert(1)</script>',
        defaultHeaders: '{}',
      },
    );
    expect(page.match(/<\/script>/g)).toHaveLength(2); // the config block and the bundle, nothing injected
    const block = /<script id="graphiql-config" type="application\/json">([^<]*)<\/script>/.exec(
      page,
    )!;
    expect(JSON.parse(block[1]!).defaultQuery).toBe('# </script><script>alert(1)</script>');
  });
});

describe('buildExplorerAssets', () => {
  it('writes hashed files listed in the manifest, and skips the work while the inputs are unchanged', async () => {
    const first = await buildExplorerAssets();
    const dir = explorerAssetDir();
    expect(readAssetManifest(dir)).toEqual(first.manifest);
    for (const file of first.manifest.files) expect(existsSync(join(dir, file))).toBe(true);
    expect(first.manifest.files).toEqual(
      expect.arrayContaining([
        first.manifest.script,
        first.manifest.stylesheet,
        first.manifest.icon,
      ]),
    );
    // No inlined data left in the stylesheet: every font and image is a file of its own.
    expect(readFileSync(join(dir, first.manifest.stylesheet), 'utf8')).not.toContain('data:');
    const second = await buildExplorerAssets();
    expect(second).toEqual({ manifest: first.manifest, built: false });
    expect(second.manifest.inputsHash).toBe(explorerInputsHash());
  });
});
