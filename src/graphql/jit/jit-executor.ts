import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { asGraphQLJsError } from './jit-errors';

export interface ExecuteRequest {
  document: DocumentNode;
  operationName: string | null;
  /** The operation's kind: only queries run compiled. */
  operation: 'query' | 'mutation' | 'subscription';
  variables: Record<string, unknown> | undefined;
  contextValue: unknown;
}

export interface JitExecutorOptions {
  /**
   * The execution of a document from which it runs compiled; the runs before go to graphql-js.
   * Default 1 (compiled at once).
   */
  compileAt?: number;
}

/**
 * Executes operations with graphql-jit, compiled once per parsed document (Apollo hands the same
 * DocumentNode for the same query text, so the compiled form is reused) and operation name, from
 * the document's `compileAt`-th execution on.
 *
 * Every operation runs once: resolvers never run twice, an error included. graphql-js runs
 * mutations, documents graphql-jit cannot compile, and queries whose variables graphql-jit
 * refuses: its coercion errors are worded differently, it stops before any resolver, and
 * graphql-js then stops at the same point, so its exact wording costs one coercion. Any other
 * error is graphql-jit's, rebuilt as graphql-js's error object (jit-errors.ts), with the
 * message, locations, path and code graphql-js gives (test/security/jit-errors.test.ts). Known
 * difference: when a non-null violation (a server bug) found synchronously nulls the whole
 * `data`, graphql-js stops there and reports that error alone; graphql-jit also reports the
 * errors of the sibling fields it had already run.
 */
export class JitExecutor {
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  private readonly runs = new WeakMap<DocumentNode, number>();
  private readonly compileAt: number;

  constructor(
    private readonly schema: GraphQLSchema,
    options: JitExecutorOptions = {},
  ) {
    this.compileAt = options.compileAt ?? 1;
  }

  /** The compiled form, or null where graphql-jit cannot compile the document. */
  private compile(document: DocumentNode, operationName: string | null): CompiledQuery | null {
    let byName = this.compiled.get(document);
    if (!byName) {
      byName = new Map();
      this.compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let compiled = byName.get(key);
    if (compiled === undefined) {
      try {
        const result = compileQuery(this.schema, document, operationName ?? undefined);
        compiled = isCompiledQuery(result) ? (result as CompiledQuery) : null;
      } catch {
        compiled = null; // a shape graphql-jit does not support: graphql-js runs it
      }
      byName.set(key, compiled);
    }
    return compiled;
  }

  /** True once the document has run often enough to be worth compiling. */
  private due(document: DocumentNode): boolean {
    if (this.compileAt <= 1) return true;
    const runs = (this.runs.get(document) ?? 0) + 1;
    if (runs >= this.compileAt) return true;
    this.runs.set(document, runs);
    return false;
  }

  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    const reference = () =>
      execute({
        schema: this.schema,
        document: request.document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue: request.contextValue,
      });
    if (request.operation !== 'query' || !this.due(request.document)) return reference();
    const compiled = this.compile(request.document, request.operationName);
    if (!compiled) return reference();
    const result = await compiled.query(undefined, request.contextValue, request.variables);
    if (!result.errors || result.errors.length === 0) return result as ExecutionResult;
    // Without `data` nothing ran: the variables did not coerce.
    if (!('data' in result)) return reference();
    return { data: result.data, errors: result.errors.map(asGraphQLJsError) } as ExecutionResult;
  }
}
