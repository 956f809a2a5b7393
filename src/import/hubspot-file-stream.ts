import { createReadStream } from 'node:fs';
import { Tokenizer, TokenParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';

/**
 * What reading a HubSpot JSON file as a stream gives, in file order. The elements of every
 * `results` array of a page come one by one (a page: the root object, an element of a root array,
 * the `deals` of a combined file or an element of it); everything else is assembled whole into
 * the shell of the object it belongs to, `results` arrays left empty there.
 */
export type FileEvent =
  /** An element of a `results` array: of the root page (`in: 'root'`) or of a deal page of a combined file's `deals`, or of a root array's pages (`in: 'pages'`). */
  | { type: 'result'; in: 'root' | 'pages'; page: number; index: number; value: unknown }
  /** A member of the root object, assembled whole (`pipelines`, `owners`, `paging`...). */
  | { type: 'member'; key: string; value: unknown }
  /** A page that is an element of an array of pages (the root, or a combined file's `deals`), or a combined file's `deals` page, has ended. */
  | { type: 'page'; page: number; shell: unknown; rootArray: boolean }
  /** The document has ended: the root's shell (`deals` of a combined file emptied as `results` are). */
  | { type: 'end'; shell: unknown };

/** A structural error in the JSON itself (not a HubSpot shape), with its byte offset. */
export class JsonStreamError extends Error {
  constructor(
    message: string,
    readonly offset: number | null,
  ) {
    super(message);
    this.name = 'JsonStreamError';
  }
}

type Json = Record<string, unknown>;

// The library's CommonJS build exports its enum through a getter: read once, not per token.
const { LEFT_BRACE, RIGHT_BRACE, LEFT_BRACKET, RIGHT_BRACKET, COLON, COMMA, STRING, NUMBER } =
  TokenType;

/** A container the router walks through itself (values below it are assembled). */
type Frame =
  | {
      kind: 'object';
      /** `root`: the document; `page`: an element of an array of pages, or a combined `deals` page. */
      role: 'root' | 'page';
      page: number;
      shell: Json;
      key: string | null;
      /** What the next token must be. */
      expect: 'key-or-end' | 'key' | 'colon' | 'value' | 'comma-or-end';
    }
  | {
      kind: 'array';
      /** `results`: deals (or pipelines, owners) streamed; `pages`: pages walked through. */
      role: 'results' | 'pages';
      /** For `results`: whether the page is the root object itself. */
      inRoot: boolean;
      page: number;
      index: number;
      expect: 'value-or-end' | 'value' | 'comma-or-end';
    };

/**
 * Turns the tokens of @streamparser/json's tokenizer into FileEvents. The tokenizer does the
 * lexing (strings, escapes, numbers, UTF-8 across chunk boundaries); values below the levels
 * walked here are assembled by its TokenParser, one document after another (`separator: ''`).
 * The library's own path selection cannot do this: it keeps an emitted value's ancestors whole
 * whenever they are selected too, and a page's `paging` and its `results` elements are both wanted.
 */
class FileRouter {
  private readonly stack: Frame[] = [];
  /** Assembles the values below the walked levels, one after another; null until the first. */
  private parser: TokenParser | null = null;
  private assembling = false;
  private depth = 0;
  private assembled: unknown = undefined;
  private ended = false;
  private nextPage = 0;
  private pendingKey: string | null = null;
  readonly events: FileEvent[] = [];

  token(info: ParsedTokenInfo): void {
    if (this.assembling) {
      this.feed(info);
      return;
    }
    if (this.ended)
      throw new JsonStreamError('Unexpected non-whitespace character after JSON', info.offset);
    const top = this.stack.at(-1);
    if (!top) {
      this.startValue(info, null);
      return;
    }
    if (top.kind === 'object') this.objectToken(top, info);
    else this.arrayToken(top, info);
  }

  /** The tokenizer reached the end of the input. */
  end(offset: number): void {
    if (!this.ended) throw new JsonStreamError('Unexpected end of JSON input', offset);
  }

  private objectToken(frame: Extract<Frame, { kind: 'object' }>, info: ParsedTokenInfo): void {
    switch (frame.expect) {
      case 'key-or-end':
      case 'key':
        if (info.token === STRING) {
          frame.key = info.value as string;
          frame.expect = 'colon';
          return;
        }
        if (info.token === RIGHT_BRACE && frame.expect === 'key-or-end') {
          this.closeObject(frame);
          return;
        }
        break;
      case 'colon':
        if (info.token === COLON) {
          frame.expect = 'value';
          return;
        }
        break;
      case 'value':
        frame.expect = 'comma-or-end';
        this.startValue(info, frame);
        return;
      case 'comma-or-end':
        if (info.token === COMMA) {
          frame.expect = 'key';
          return;
        }
        if (info.token === RIGHT_BRACE) {
          this.closeObject(frame);
          return;
        }
        break;
    }
    throw unexpected(info);
  }

  private arrayToken(frame: Extract<Frame, { kind: 'array' }>, info: ParsedTokenInfo): void {
    switch (frame.expect) {
      case 'value-or-end':
      case 'value':
        if (info.token === RIGHT_BRACKET && frame.expect === 'value-or-end') {
          this.closeArray();
          return;
        }
        frame.expect = 'comma-or-end';
        this.startValue(info, frame);
        return;
      case 'comma-or-end':
        if (info.token === COMMA) {
          frame.index += 1;
          frame.expect = 'value';
          return;
        }
        if (info.token === RIGHT_BRACKET) {
          this.closeArray();
          return;
        }
        break;
    }
    throw unexpected(info);
  }

  /** The first token of a value whose parent is `parent` (null: the root). */
  private startValue(info: ParsedTokenInfo, parent: Frame | null): void {
    const opensObject = info.token === LEFT_BRACE;
    const opensArray = info.token === LEFT_BRACKET;
    if (parent === null) {
      if (opensObject) return this.pushObject('root', 0);
      if (opensArray) return this.pushArray('pages', 0, false);
    } else if (parent.kind === 'object') {
      const key = parent.key!;
      if (key === 'results' && opensArray)
        return this.pushArray('results', parent.page, parent.role === 'root');
      if (parent.role === 'root' && key === 'deals') {
        if (opensArray) return this.pushArray('pages', 0, false);
        if (opensObject) return this.pushObject('page', this.nextPage++);
      }
    } else if (parent.role === 'pages' && opensObject) {
      return this.pushObject('page', this.nextPage++);
    }
    this.assemble(info);
  }

  private pushObject(role: 'root' | 'page', page: number): void {
    this.stack.push({ kind: 'object', role, page, shell: {}, key: null, expect: 'key-or-end' });
  }

  private pushArray(role: 'results' | 'pages', page: number, inRoot: boolean): void {
    this.stack.push({ kind: 'array', role, inRoot, page, index: 0, expect: 'value-or-end' });
  }

  private closeObject(frame: Extract<Frame, { kind: 'object' }>): void {
    this.stack.pop();
    if (frame.role === 'root') {
      this.ended = true;
      this.events.push({ type: 'end', shell: frame.shell });
      return;
    }
    this.events.push({
      type: 'page',
      page: frame.page,
      shell: frame.shell,
      rootArray: this.stack.length === 1 && this.stack[0].kind === 'array',
    });
    // A combined file's `deals` that is one page keeps its shell; pages of an array are handed on only.
    if (this.stack.at(-1)?.kind === 'object') this.place(frame.shell);
  }

  private closeArray(): void {
    this.stack.pop();
    if (this.stack.length === 0) {
      this.ended = true;
      this.events.push({ type: 'end', shell: [] });
      return;
    }
    this.place([]);
  }

  /** Puts a value where the walk stands: a member of the object on top, or an element of the array. */
  private place(value: unknown): void {
    const top = this.stack.at(-1);
    if (!top) {
      this.ended = true;
      this.events.push({ type: 'end', shell: value });
      return;
    }
    if (top.kind === 'object') {
      // As JSON.parse does, a key given twice keeps its last value; `__proto__` stays an own key.
      Object.defineProperty(top.shell, top.key!, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      if (top.role === 'root' && this.assembling)
        this.events.push({ type: 'member', key: top.key!, value });
      return;
    }
    if (top.role === 'results') {
      this.events.push({
        type: 'result',
        in: top.inRoot ? 'root' : 'pages',
        page: top.page,
        index: top.index,
        value,
      });
      return;
    }
    // A page that is not an object: handed on whole, to be refused as a page.
    this.events.push({
      type: 'page',
      page: this.nextPage++,
      shell: value,
      rootArray: this.stack.length === 1,
    });
  }

  private assemble(info: ParsedTokenInfo): void {
    if (!this.parser) {
      this.parser = new TokenParser({ paths: ['$'], keepStack: false, separator: '' });
      this.parser.onValue = ({ value }) => {
        this.assembled = value;
      };
    }
    this.assembling = true;
    this.depth = 0;
    this.feed(info);
  }

  private feed(info: ParsedTokenInfo): void {
    this.parser!.write(info);
    if (info.token === LEFT_BRACE || info.token === LEFT_BRACKET) this.depth += 1;
    else if (info.token === RIGHT_BRACE || info.token === RIGHT_BRACKET) this.depth -= 1;
    if (this.depth > 0) return;
    const value = this.assembled;
    this.assembled = undefined;
    this.place(value);
    this.assembling = false;
  }
}

function unexpected(info: ParsedTokenInfo): JsonStreamError {
  return new JsonStreamError(
    `Unexpected ${info.token === STRING ? 'string' : info.token === NUMBER ? 'number' : `token ${JSON.stringify(info.value)}`} in JSON`,
    info.offset,
  );
}

/** Bytes read per chunk of a file. */
const READ_CHUNK = 1 << 20;

/**
 * Reads a JSON file as a stream of FileEvents, a chunk of the file at a time: what is held is a
 * chunk's events and the value being assembled, never the document. Throws JsonStreamError for
 * anything that is not valid JSON, and the file system's error when the file cannot be read.
 */
export async function* streamHubSpotFile(file: string): AsyncIterable<FileEvent> {
  const router = new FileRouter();
  const tokenizer = new Tokenizer({ stringBufferSize: 0 });
  let failure: Error | null = null;
  tokenizer.onToken = (info) => {
    if (failure) return;
    try {
      router.token(info);
    } catch (error) {
      // The assembler's own errors (a token out of place inside a value) are the JSON's too.
      failure =
        error instanceof JsonStreamError
          ? error
          : new JsonStreamError((error as Error).message, info.offset);
    }
  };
  tokenizer.onError = (error) => {
    failure ??= new JsonStreamError(error.message, null);
  };
  let offset = 0;
  const stream = createReadStream(file, { highWaterMark: READ_CHUNK });
  try {
    for await (const chunk of stream) {
      tokenizer.write(chunk as Buffer);
      offset += (chunk as Buffer).length;
      if (failure) throw failure;
      if (router.events.length > 0) yield* router.events.splice(0);
    }
    tokenizer.end();
    if (failure) throw failure;
    router.end(offset);
    yield* router.events.splice(0);
  } finally {
    stream.destroy();
  }
}
