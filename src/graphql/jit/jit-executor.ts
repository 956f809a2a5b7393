import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

export interface ExecuteRequest {
  document: DocumentNode;
  operationName: string | null;
  /** The operation's kind: only queries run compiled. */
  operation: 'query' | 'mutation' | 'subscription';
  variables: Record<string, unknown> | undefined;
  contextValue: unknown;
}

/**
 * Executes operations with graphql-jit, compiled once per parsed document (Apollo hands the same
 * DocumentNode for the same query text, so the compiled form is reused) and operation name.
 *
 * graphql-js stays the reference: mutations always run on it (a fallback must never run a write
 * twice), so do documents graphql-jit cannot compile, and a query whose compiled run reports any
 * error is run again with graphql-js and answered from there, so every error (codes, messages,
 * paths, coercion failures) is exactly what graphql-js gives. Queries are reads: running one
 * twice changes nothing.
 */
export class JitExecutor {
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  constructor(private readonly schema: GraphQLSchema) {}

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

  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    const reference = () =>
      execute({
        schema: this.schema,
        document: request.document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue: request.contextValue,
      });
    if (request.operation !== 'query') return reference();
    const compiled = this.compile(request.document, request.operationName);
    if (!compiled) return reference();
    const result = await compiled.query(undefined, request.contextValue, request.variables);
    if (result.errors && result.errors.length > 0) return reference();
    return result as ExecutionResult;
  }
}
