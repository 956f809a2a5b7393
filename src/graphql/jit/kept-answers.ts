import type { ExecutionResult, FormattedExecutionResult } from 'graphql';
import { AnswerCache, callerKey } from '../../cache/answer-cache';
import type { RequestContext } from '../../context/request-context';

export interface KeptAnswerRequest {
  /** The query text as sent (Apollo's `requestContext.source`). */
  source: string | undefined;
  operationName: string | null;
  operation: 'query' | 'mutation' | 'subscription';
  variables: Record<string, unknown> | undefined;
  contextValue: RequestContext;
}

/** Apollo's own serialisation (prettyJSONStringify), which answers must keep byte for byte. */
function stringify(value: FormattedExecutionResult): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * Query answers kept whole (AnswerCache: per caller and request, until any write or the next UTC
 * day), with their serialised text, so a repeated query costs neither execution nor
 * serialisation. Only error-free query answers are kept: a mutation always runs, and an error
 * (NOT_FOUND, FORBIDDEN...) is worked out again each time.
 *
 * The text is found again from the answer's `data` object, which Apollo passes through to
 * `stringifyResult` untouched; kept answers are shared between requests and never changed.
 */
export class KeptAnswers {
  private readonly texts = new WeakMap<object, string>();

  constructor(private readonly answers: AnswerCache<ExecutionResult> = new AnswerCache()) {}

  async execute(request: KeptAnswerRequest, run: () => Promise<ExecutionResult>): Promise<ExecutionResult> {
    if (request.operation !== 'query' || request.source === undefined) return run();
    const key = `${callerKey(request.contextValue.principal)}\u0000${request.operationName ?? ''}\u0000${request.source}\u0000${JSON.stringify(request.variables ?? {})}`;
    const kept = this.answers.get(key);
    if (kept) return kept;
    const ticket = this.answers.begin();
    const result = await run();
    if (ticket !== null && result.errors === undefined && result.extensions === undefined && result.data) {
      const text = stringify({ data: result.data });
      this.texts.set(result.data, text);
      this.answers.keep(key, result, key.length + text.length, ticket); // the key holds the query text: it counts too
    }
    return result;
  }

  /** Apollo `stringifyResult`: a kept answer's text as it was made, anything else serialised now. */
  readonly stringifyResult = (value: FormattedExecutionResult): string => {
    if (value.errors === undefined && value.extensions === undefined && value.data) {
      const text = this.texts.get(value.data);
      if (text !== undefined) return text;
    }
    return stringify(value);
  };
}
