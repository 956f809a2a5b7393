import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { jsonErrorLocation, jsonErrorReason } from './json-position';
import { legacyShapeOf } from './legacy-shapes';
import type { RawCrmImport } from './validate-documents';

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

function resultsOf(doc: unknown): unknown[] {
  return isObject(doc) && Array.isArray(doc.results) ? doc.results : [];
}

/**
 * Reads HubSpot JSON files into one import request: a combined file, or separate pipelines, owners
 * and deal-page files in any order (several pipelines or owners files have their results joined;
 * deal pages are kept as pages). Throws HubSpotFileError naming the file for anything unusable.
 * The structure inside the documents is left to the import's own validation. `incremental`: the
 * pipelines and owners documents may be missing (the latest snapshot's stand).
 */
export async function readHubSpotFiles(
  files: string[],
  options: { incremental?: boolean } = {},
): Promise<Pick<RawCrmImport, 'pipelines' | 'owners' | 'deals'>> {
  if (files.length === 0)
    throw new HubSpotFileError(
      '(arguments)',
      'no files given: pass the HubSpot JSON files to import',
    );
  const pipelines: unknown[] = [];
  const owners: unknown[] = [];
  const deals: unknown[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'is a directory'
              : String(error);
      throw new HubSpotFileError(file, `cannot read it (${why})`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      const at = jsonErrorLocation(text, error as Error);
      const where = at ? ` at line ${at.line}, column ${at.column}` : '';
      throw new HubSpotFileError(
        file,
        `is not valid JSON${where}: ${jsonErrorReason(error as Error)}`,
      );
    }
    switch (classifyHubSpotDocument(file, doc)) {
      case 'combined': {
        const combined = doc as Json;
        if (combined.pipelines !== undefined) pipelines.push(combined.pipelines);
        if (combined.owners !== undefined) owners.push(combined.owners);
        if (combined.deals !== undefined)
          deals.push(...(Array.isArray(combined.deals) ? combined.deals : [combined.deals]));
        break;
      }
      case 'pipelines':
        pipelines.push(doc);
        break;
      case 'owners':
        owners.push(doc);
        break;
      case 'deals':
        deals.push(...(Array.isArray(doc) ? doc : [doc]));
        break;
    }
  }
  const optional = options.incremental === true;
  const missing = [
    !optional && pipelines.length === 0 && 'pipelines',
    !optional && owners.length === 0 && 'owners',
    deals.length === 0 && 'deals',
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
  return { pipelines: join(pipelines), owners: join(owners), deals };
}
