import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { NotFoundError, ServiceUnavailableError } from '../errors';
import { cachePolicy } from '../security/security-headers';
import { type AssetManifest, readAssetManifest } from './asset-manifest';
import { assetContentType } from './content-types';
import { EXPLORER_DEFAULT_HEADERS, EXPLORER_DEFAULT_QUERY } from './defaults';
import { EXPLORER_ASSET_PREFIX, EXPLORER_CSP, renderExplorerPage } from './explorer-page';
import { explorerAssetDir } from './paths';
import { prefersHtml } from './prefers-html';

export interface GraphiqlPluginOptions {
  /** Folder of the built assets and their manifest. Default: `dist/graphiql` of the project. */
  assetDir?: string;
  /** The GraphQL endpoint the explorer talks to, and where browsers asking for HTML get the page. Default `/graphql`. */
  graphqlPath?: string;
  /** Query shown in a fresh explorer. Default: the operation `ExplorerOverview`. */
  defaultQuery?: string;
}

/** On top of the security headers every answer has (src/security/security-headers.ts). */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': EXPLORER_CSP,
};

/** Asset names carry their content hash, so a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The GraphiQL explorer, served from the gateway's own built assets (no CDN): `GET /graphiql`,
 * `GET /graphiql/assets/<hashed file>`, and the same page for `GET /graphql` when a browser asks
 * for HTML. None of them needs a token; the GraphQL requests the page makes do. When the assets
 * are not built yet the page answers 503 saying how to build them, and starts working as soon as
 * they are, without a restart.
 */
async function graphiqlPlugin(app: FastifyInstance, options: GraphiqlPluginOptions): Promise<void> {
  const assetDir = options.assetDir ?? explorerAssetDir();
  const graphqlPath = options.graphqlPath ?? '/graphql';
  const config = {
    endpoint: graphqlPath,
    defaultQuery: options.defaultQuery ?? EXPLORER_DEFAULT_QUERY,
    defaultHeaders: EXPLORER_DEFAULT_HEADERS,
  };

  const files = new Map<string, Buffer>();
  // Read on each page and asset request (a small file), so a rebuild is picked up without a restart.
  function currentManifest(): AssetManifest {
    const manifest = readAssetManifest(assetDir);
    if (manifest === null)
      throw new ServiceUnavailableError(
        `The GraphiQL explorer is not built yet (no manifest in ${assetDir}): run "npm run build"`,
      );
    return manifest;
  }

  function sendPage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const page = renderExplorerPage(currentManifest(), config);
    return reply
      .code(200)
      .headers(PAGE_HEADERS)
      .header('cache-control', cachePolicy(request, 'no-cache'))
      .send(page);
  }

  app.get('/graphiql', async (request, reply) => sendPage(request, reply));

  app.get<{ Params: { file: string } }>(`${EXPLORER_ASSET_PREFIX}:file`, async (request, reply) => {
    const { file } = request.params;
    // Only files the build listed are served: no path from the URL ever reaches the file system.
    if (!currentManifest().files.includes(file))
      throw new NotFoundError(`No GraphiQL asset named ${file}`);
    let contents = files.get(file);
    if (contents === undefined) {
      contents = await readFile(join(assetDir, file));
      files.set(file, contents);
    }
    return reply
      .code(200)
      .headers({
        'content-type': assetContentType(file),
        'cache-control': cachePolicy(request, IMMUTABLE),
      })
      .send(contents);
  });

  // A browser asking the GraphQL endpoint for HTML gets the page: a hook on that route alone
  // (added as the route is declared), so no other request runs it. It does not wait (no promise).
  const pageForBrowsers = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void => {
    if (request.method !== 'GET' || !prefersHtml(request.headers.accept)) return done();
    try {
      sendPage(request, reply); // answered here: the route never runs
    } catch (error) {
      done(error as Error);
    }
  };
  app.addHook('onRoute', (route) => {
    if (route.url !== graphqlPath) return;
    const own =
      route.onRequest === undefined
        ? []
        : Array.isArray(route.onRequest)
          ? route.onRequest
          : [route.onRequest];
    route.onRequest = [pageForBrowsers, ...own];
  });
}

// Registered without encapsulation (fastify-plugin), so its onRoute hook sees the GraphQL route,
// declared elsewhere.
const graphiqlPluginUnencapsulated = fastifyPlugin(graphiqlPlugin, { name: 'graphiql' });

export { graphiqlPluginUnencapsulated as graphiqlPlugin };
