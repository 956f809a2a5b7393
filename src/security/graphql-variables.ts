import {
  getVariableValues,
  GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { BadUserInputError, ErrorCode, HTTP_STATUS } from '../errors';
import { inspectRaw, invalidInput } from '../validation';
import { GRAPHQL_LIMITS, tooDeepVariable } from './graphql-limits';

/**
 * graphql-js's error about a variable or an argument value, with its message and locations, as
 * Apollo answers those it finds at execution: BAD_USER_INPUT, HTTP 400 (formatError passes it).
 */
export function userInputError(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    extensions: { code: ErrorCode.BAD_USER_INPUT, http: { status: HTTP_STATUS.BAD_USER_INPUT } },
  });
}

/** The variables the operation declares, by name; the others are dropped, as execution ignores them. */
function declaredVariables(
  operation: OperationDefinitionNode,
  sent: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(
    (operation.variableDefinitions ?? [])
      .map((definition) => definition.variable.name.value)
      .filter((name) => Object.hasOwn(sent, name))
      .map((name) => [name, sent[name]]),
  );
}

/**
 * The variables of a request as execution may take them, over HTTP and WebSocket alike: only
 * those `operation` declares. Throws the error to answer (400 BAD_USER_INPUT):
 * - a variable nested deeper than a REST body may be, declared or not, checked before anything
 *   walks them;
 * - a declared variable holding what no input may (inspect-raw.ts: an object wider than the key
 *   limit is refused from its key count, before its contents are looked at);
 * - a declared variable that does not coerce to its type, or an explicit null given where the
 *   type says non-null, with graphql-js's message. Coercion stops at the first error: graphql-js
 *   prints the whole offending value into each error, so collecting one per unknown field of a
 *   wide object would cost the square of its width.
 */
export function checkedVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  sent: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const deep = tooDeepVariable(sent);
  if (deep !== undefined)
    throw new BadUserInputError(
      `Variable "$${deep}" is nested deeper than the limit of ${GRAPHQL_LIMITS.maxVariableDepth} levels`,
      [
        {
          field: deep,
          message: `expected at most ${GRAPHQL_LIMITS.maxVariableDepth} levels of nesting, got deeper input`,
        },
      ],
    );
  const variables = declaredVariables(operation, sent);
  const rawErrors = inspectRaw(variables);
  if (rawErrors.length > 0) throw invalidInput('graphql', rawErrors);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, {
    maxErrors: 1,
  });
  if (coerced.errors) throw userInputError(coerced.errors[0]!);
  return variables;
}
