import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DealPageChunk, DealPages } from './deal-pages';
import { JsonStreamError, streamHubSpotFile } from './hubspot-file-stream';
import { jsonErrorLocation, jsonErrorReason } from './json-position';
import { legacyShapeOf } from './legacy-shapes';

/** A file the CLI cannot use: unreadable, not JSON, or not a recognisable HubSpot document. */
export class HubSpotFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'HubSpotFileError';
  }
}

export type HubSpotDocumentKind = 'combined' | 'pipelines' | 'owners' | 'deals';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which HubSpot document a parsed file is, by shape: a body of a legacy API (v1 deals, v1
 * pipelines, v2 owners) is refused naming the v3 request to save instead; an object with
 * `pipelines`/`owners`/`deals` is a combined import body; an array is a list of deal pages; a `{ results }` page is told by
 * its first result (`stages` → pipelines, `properties` → deals, `email`/`userId`/`firstName` →
 * owners), or by the file name when `results` is empty.
 */
export function classifyHubSpotDocument(file: string, doc: unknown): HubSpotDocumentKind {
  const legacy = legacyShapeOf(doc);
  if (legacy)
    throw new HubSpotFileError(
      file,
      `is ${legacy.what}, which the import does not read: save the body of ${legacy.instead} instead`,
    );
  if (Array.isArray(doc)) return 'deals';
  if (!isObject(doc))
    throw new HubSpotFileError(
      file,
      `expected a JSON object or array, got ${doc === null ? 'null' : typeof doc}`,
    );
  if ('pipelines' in doc || 'owners' in doc || 'deals' in doc) return 'combined';
  if (!Array.isArray(doc.results)) {
    throw new HubSpotFileError(
      file,
      'expected a HubSpot response body with a "results" array, or a combined file with "pipelines", "owners" and "deals"',
    );
  }
  const first = doc.results[0];
  if (isObject(first)) {
    if ('stages' in first) return 'pipelines';
    if ('properties' in first) return 'deals';
    if ('email' in first || 'userId' in first || 'firstName' in first) return 'owners';
  }
  const name = path.basename(file).toLowerCase();
  for (const kind of ['pipelines', 'owners', 'deals'] as const)
    if (name.includes(kind.slice(0, -1))) return kind;
  throw new HubSpotFileError(
    file,
    first === undefined
      ? 'cannot tell which HubSpot document this is: "results" is empty; put pipeline, owner or deal in the file name'
      : 'cannot tell which HubSpot document this is: its results have neither "stages" (pipelines), "properties" (deals) nor "email" (owners)',
  );
}

/** What the CLI reads of one file before the import: its kind and, for small documents, the document. */
type ReadFile =
  | { file: string; kind: 'deals' }
  | { file: string; kind: 'pipelines' | 'owners'; doc: unknown }
  | { file: string; kind: 'combined'; pipelines: unknown; owners: unknown; deals: boolean };

/** How large a file may be for an invalid one to be parsed whole, for V8's own words and position. */
const EXACT_ERROR_MAX_BYTES = 64 * 1024 * 1024;

/** The HubSpotFileError for a file that cannot be read, or is not JSON. */
async function fileError(file: string, error: unknown): Promise<HubSpotFileError> {
  if (error instanceof HubSpotFileError) return error;
  if (!(error instanceof JsonStreamError)) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : String(error);
    return new HubSpotFileError(file, `cannot read it (${why})`);
  }
  // JSON.parse says what is wrong in the words people know, at a line and a column: worth the
  // whole read for a file that size. A larger one gets the stream's words and byte offset.
  if ((await stat(file)).size <= EXACT_ERROR_MAX_BYTES) {
    const text = await readFile(file, 'utf8');
    try {
      JSON.parse(text);
    } catch (parseError) {
      const at = jsonErrorLocation(text, parseError as Error);
      const where = at ? ` at line ${at.line}, column ${at.column}` : '';
      return new HubSpotFileError(
        file,
        `is not valid JSON${where}: ${jsonErrorReason(parseError as Error)}`,
      );
    }
  }
  const where = error.offset === null ? '' : ` at byte ${error.offset}`;
  return new HubSpotFileError(file, `is not valid JSON${where}: ${error.message}`);
}

/**
 * Reads a file as far as telling which HubSpot document it is: a page is told by its first
 * result (or its name, when it has none), an array of pages by its first page, a combined file by
 * its members. Pipelines and owners documents are kept (they are small); deal pages are left for
 * the import to stream. A combined file is read through for its pipelines and owners (its deal
 * pages passed over, left to the import too).
 */
async function classifyFile(file: string): Promise<ReadFile> {
  let results: unknown[] | null = null;
  for await (const event of streamHubSpotFile(file)) {
    switch (event.type) {
      case 'member':
        break;
      case 'result':
        if (event.in === 'pages') break;
        (results ??= []).push(event.value);
        // A page of deals is the import's to stream: what it is, is known.
        if (results.length === 1 && classifyHubSpotDocument(file, { results }) === 'deals')
          return { file, kind: 'deals' };
        break;
      case 'page':
        // The first page of a root array: a legacy owners list is refused, anything else is pages.
        if (event.rootArray && event.page === 0) {
          classifyHubSpotDocument(file, [event.shell]);
          return { file, kind: 'deals' };
        }
        break;
      case 'end':
        return fromWhole(file, event.shell, results);
    }
  }
  throw new HubSpotFileError(file, 'ended before its document did');
}

/** A file read to its end: what its shell, with the results kept, says it is. */
function fromWhole(file: string, shell: unknown, results: unknown[] | null): ReadFile {
  if (Array.isArray(shell)) return { file, kind: 'deals' };
  const doc = isObject(shell) && 'results' in shell ? { ...shell, results: results ?? [] } : shell;
  const kind = classifyHubSpotDocument(file, doc);
  if (kind === 'combined') {
    const whole = doc as Json;
    return {
      file,
      kind,
      pipelines: whole.pipelines,
      owners: whole.owners,
      deals: whole.deals !== undefined,
    };
  }
  return kind === 'deals' ? { file, kind } : { file, kind, doc };
}

/**
 * Reads HubSpot JSON files for one import: a combined file, or separate pipelines, owners and
 * deal-page files in any order (several pipelines or owners files have their results joined).
 * Pipelines and owners come whole; deal pages come as a stream (deal-pages.ts), one page after
 * another in the order of the files, read again from disk as the import takes them, so that no
 * deals file is held in memory whatever its size. Throws HubSpotFileError naming the file for
 * anything unusable found before the import starts; a deals file that turns out not to be valid
 * JSON past its first page fails the import with the same error. The structure inside the
 * documents is left to the import's own validation. `incremental`: the pipelines and owners
 * documents may be missing (the latest snapshot's stand).
 */
export async function readHubSpotFiles(
  files: string[],
  options: { incremental?: boolean } = {},
): Promise<{ pipelines: unknown; owners: unknown; deals: DealPages }> {
  if (files.length === 0)
    throw new HubSpotFileError(
      '(arguments)',
      'no files given: pass the HubSpot JSON files to import',
    );
  const pipelines: unknown[] = [];
  const owners: unknown[] = [];
  const dealFiles: string[] = [];
  for (const file of files) {
    let read: ReadFile;
    try {
      read = await classifyFile(file);
    } catch (error) {
      throw await fileError(file, error);
    }
    switch (read.kind) {
      case 'combined':
        if (read.pipelines !== undefined) pipelines.push(read.pipelines);
        if (read.owners !== undefined) owners.push(read.owners);
        if (read.deals) dealFiles.push(file);
        break;
      case 'pipelines':
        pipelines.push(read.doc);
        break;
      case 'owners':
        owners.push(read.doc);
        break;
      case 'deals':
        dealFiles.push(file);
        break;
    }
  }
  const optional = options.incremental === true;
  const missing = [
    !optional && pipelines.length === 0 && 'pipelines',
    !optional && owners.length === 0 && 'owners',
    dealFiles.length === 0 && 'deals',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new HubSpotFileError(
      '(arguments)',
      `no ${missing.join(' or ')} document among the files; save every one of them from HubSpot`,
    );
  }
  // One document keeps its exact shape (and error paths); several are joined into one.
  const join = (docs: unknown[]) =>
    docs.length === 0
      ? undefined
      : docs.length === 1
        ? docs[0]
        : { results: docs.flatMap(resultsOf) };
  return { pipelines: join(pipelines), owners: join(owners), deals: dealPagesOfFiles(dealFiles) };
}

function resultsOf(doc: unknown): unknown[] {
  return isObject(doc) && Array.isArray(doc.results) ? doc.results : [];
}

/** Results of one page per chunk at most (the chunk the import takes at a time). */
const CHUNK = 2000;

/**
 * The deal pages of the files, as one array of pages in file order: each file streamed again, its
 * pages' results handed on in chunks, each page's shell with its last chunk.
 */
function dealPagesOfFiles(files: string[]): DealPages {
  return {
    asArray: true,
    expected: null,
    async *[Symbol.asyncIterator]() {
      let base = 0;
      for (const file of files) {
        let page = -1;
        let offset = 0;
        let results: unknown[] = [];
        let pages = 0;
        const flush = (shell?: unknown): DealPageChunk => {
          const chunk: DealPageChunk = {
            page: base + page,
            offset,
            results,
            ...(shell === undefined ? {} : { shell }),
          };
          offset += results.length;
          results = [];
          return chunk;
        };
        try {
          for await (const event of streamHubSpotFile(file)) {
            if (event.type === 'member') continue;
            if (event.type === 'result') {
              if (event.page !== page) {
                page = event.page;
                offset = 0;
              }
              results.push(event.value);
              if (results.length >= CHUNK) yield flush();
            } else if (event.type === 'page') {
              if (event.page !== page) {
                page = event.page;
                offset = 0;
              }
              pages = Math.max(pages, page + 1);
              yield flush(event.shell);
            } else if (isObject(event.shell) && !('deals' in event.shell)) {
              // A file that is one page: it ends with its own shell.
              if (page === -1) page = 0;
              pages = 1;
              yield flush(event.shell);
            }
          }
        } catch (error) {
          throw await fileError(file, error);
        }
        base += pages;
      }
    },
  };
}
