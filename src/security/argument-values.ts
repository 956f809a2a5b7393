/**
 * Internal to the cost estimate: a field's argument values as execution will see them, worked out
 * from the raw request before variables are coerced. A variable the request does not send takes
 * the operation's default (`query($n: Int = 100)`), and an argument that is absent, or whose
 * variable has no value at all, takes the schema's default (`first: Int! = 20`).
 */
import {
  isInputType,
  Kind,
  typeFromAST,
  valueFromAST,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** Variables by name, without a prototype: a field named `constructor` must find nothing. */
export type VariableValues = Readonly<Record<string, unknown>>;

/** The request's variables, with the operation's defaults for those it does not send. */
export function variablesWithDefaults(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  sent: Readonly<Record<string, unknown>>,
): VariableValues {
  const variables: Record<string, unknown> = Object.assign(Object.create(null), sent);
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    // An explicit null is a value: it overrides the default, as in execution.
    if (variables[name] !== undefined || !definition.defaultValue) continue;
    const type = typeFromAST(schema, definition.type);
    variables[name] =
      type && isInputType(type) ? valueFromAST(definition.defaultValue, type) : undefined;
  }
  return variables;
}

/**
 * The values of the arguments `field` defines, by name. Values are not coerced: a variable's value
 * is what the client sent, so callers treat anything unexpected as the worst case (argument
 * validation refuses it later anyway).
 */
export function argumentValues(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: VariableValues,
): Record<string, unknown> {
  const values: Record<string, unknown> = Object.create(null);
  for (const argument of field.args) {
    const given = node.arguments?.find(
      (candidate) => candidate.name.value === argument.name,
    )?.value;
    if (
      given === undefined ||
      (given.kind === Kind.VARIABLE && variables[given.name.value] === undefined)
    ) {
      values[argument.name] = argument.defaultValue;
    } else if (given.kind === Kind.VARIABLE) {
      values[argument.name] = variables[given.name.value];
    } else {
      values[argument.name] = valueFromAST(given, argument.type, variables);
    }
  }
  return values;
}
