import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { BadUserInputError } from '../errors';

/**
 * Replaces fastify's JSON parser: empty bodies read as "no body", bytes that are not UTF-8 and
 * malformed JSON are a 400 that says what is wrong. Prototype keys are left in place on purpose
 * (JSON.parse makes them plain own properties) so that validation can reject them by name instead
 * of silently dropping them. Only JSON content types are registered, so any other body is
 * fastify's 415.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (
    _request: unknown,
    body: string | Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ): void => {
    // Decoding would silently turn bytes that are not UTF-8 into U+FFFD: refuse them instead.
    if (typeof body !== 'string' && !isUtf8(body)) {
      done(new BadUserInputError('The request body is not valid UTF-8'), undefined);
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const reason = error instanceof SyntaxError ? error.message : 'unparseable';
      done(new BadUserInputError(`Malformed JSON in the request body: ${reason}`), undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
  app.addContentTypeParser(/^application\/[a-z0-9.+-]*\+json$/i, { parseAs: 'buffer' }, parse);
}
