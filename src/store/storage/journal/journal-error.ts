/**
 * Errors of the file journal. A corrupt file is never repaired silently: the message names the
 * file, the byte offset and what was expected, so an operator can decide (restore, truncate).
 */
export class CorruptJournalError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`Corrupt journal file ${file} at byte ${offset}: ${detail}`);
    this.name = 'CorruptJournalError';
  }
}

/** Raised by `append`/`sync`/`compact` on a journal that is not open, closed, or failed. */
export class JournalStateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JournalStateError';
  }
}
