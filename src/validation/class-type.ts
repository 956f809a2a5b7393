/** A class, as class-validator and type-graphql take one (their own metadata keys it by constructor). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any constructor, whatever its parameters
export type ClassType = abstract new (...args: any[]) => object;
