import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildGatewaySchema } from './build-schema';

/** The SDL committed as schema/schema.graphql: sorted, so only real changes show in diffs. */
export async function printGatewaySchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await buildGatewaySchema()))}\n`;
}

/** Where the committed SDL lives, relative to the project root. */
export const SCHEMA_FILE = 'schema/schema.graphql';
