import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { ErrorCode } from '../errors';
import { INPUT_LIMITS } from '../validation/limits';

/**
 * Abuse limits on GraphQL documents, checked as validation rules: they run after parsing and
 * before any resolver or database work. Numbers follow graphql-armor's defaults. Written here
 * rather than taken from graphql-armor because its depth rule skips fragments named `__schema`
 * (a known bypass) and the rules are short.
 */
export const GRAPHQL_LIMITS = {
  /** Deepest field nesting, fragments expanded (`{ a { b } }` is 2). */
  maxDepth: 6,
  /** Aliased fields in one document. */
  maxAliases: 15,
  /** Directive uses in one document. */
  maxDirectives: 50,
  /** Lexical tokens in one document; enforced by the parser (`parseOptions.maxTokens`). */
  maxTokens: 1000,
  /** Deepest nesting of the request's variables: the same as a REST body's (INPUT_LIMITS). */
  maxVariableDepth: INPUT_LIMITS.maxDepth,
} as const;

/** Root fields of introspection; `__typename` is not one (it reads nothing). */
export const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED } });
}

/** Depth of a selection set with fragment spreads followed; a spread already on the path counts 0 (cycles are NoFragmentCycles' job). */
function depthOf(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  path: Set<string>,
  limit: number,
): number {
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    let depth = 0;
    if (selection.kind === Kind.FIELD) {
      // The introspection fields themselves (not fragments that borrow their names) are governed
      // by the INTROSPECTION policy and the token limit: GraphiQL's schema query nests 9+ levels.
      const introspection = INTROSPECTION_FIELDS.has(selection.name.value);
      depth =
        selection.selectionSet && !introspection
          ? 1 + depthOf(selection.selectionSet, fragments, path, limit)
          : 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      depth = depthOf(selection.selectionSet, fragments, path, limit);
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (fragment && !path.has(name)) {
        path.add(name);
        depth = depthOf(fragment.selectionSet, fragments, path, limit);
        path.delete(name);
      }
    }
    deepest = Math.max(deepest, depth);
    // Past the limit the exact figure does not matter; stop walking (reused fragments multiply work).
    if (deepest > limit) return deepest;
  }
  return deepest;
}

/** Refuses operations nested deeper than `maxDepth` fields, counting through every fragment, introspection included. */
export function maxDepthRule(maxDepth: number = GRAPHQL_LIMITS.maxDepth): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION)
        fragments.set(definition.name.value, definition);
    }
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet, fragments, new Set(), maxDepth);
        if (depth > maxDepth) {
          const name = operation.name ? `"${operation.name.value}"` : 'the operation';
          context.reportError(
            limitError(
              `Query depth limit exceeded: ${name} nests fields deeper than the maximum of ${maxDepth}`,
            ),
          );
        }
      },
    };
  };
}

/** Refuses documents with more than `maxAliases` aliased fields. */
export function maxAliasesRule(maxAliases: number = GRAPHQL_LIMITS.maxAliases): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    return {
      Field(node) {
        if (node.alias) count += 1;
      },
      Document: {
        leave() {
          if (count > maxAliases)
            context.reportError(
              limitError(`Too many aliases: ${count}, at most ${maxAliases} are allowed`),
            );
        },
      },
    };
  };
}

/** Refuses documents with more than `maxDirectives` directive uses. */
export function maxDirectivesRule(
  maxDirectives: number = GRAPHQL_LIMITS.maxDirectives,
): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    return {
      Directive() {
        count += 1;
      },
      Document: {
        leave() {
          if (count > maxDirectives)
            context.reportError(
              limitError(`Too many directives: ${count}, at most ${maxDirectives} are allowed`),
            );
        },
      },
    };
  };
}

/** The rules Apollo runs beside graphql-js's own. */
export function graphqlLimitRules(): ValidationRule[] {
  return [maxDepthRule(), maxAliasesRule(), maxDirectivesRule()];
}

/** An object's values, or none when it is wider than the key limit (see tooDeepVariable). */
function childrenOf(value: object): unknown[] {
  const keys = Object.keys(value);
  if (keys.length > INPUT_LIMITS.maxObjectKeys) return [];
  return keys.map((key) => (value as Record<string, unknown>)[key]);
}

/**
 * The first variable holding objects or arrays nested deeper than `maxDepth` levels (counted as a
 * REST body's: the variables object is level 0, a variable's value level 1), or undefined. Walked
 * without recursion, and before anything else walks them, so hostile nesting cannot overflow the
 * stack. An object wider than the key limit is not walked: a declared variable holding it is
 * refused from its key count next (graphql-variables.ts), an undeclared one is dropped unread.
 */
export function tooDeepVariable(
  variables: Readonly<Record<string, unknown>>,
  maxDepth: number = GRAPHQL_LIMITS.maxVariableDepth,
): string | undefined {
  const stack: Array<{ value: unknown; depth: number; name: string }> = [];
  for (const name of Object.keys(variables)) stack.push({ value: variables[name], depth: 1, name });
  while (stack.length > 0) {
    const { value, depth, name } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return name;
    const items = Array.isArray(value) ? value : childrenOf(value);
    // Only containers go on the stack: a wide array of scalars costs one pass over its items.
    for (const item of items)
      if (item !== null && typeof item === 'object')
        stack.push({ value: item, depth: depth + 1, name });
  }
  return undefined;
}
