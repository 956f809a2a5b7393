import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SCHEMA_FILE, printGatewaySchema } from '../../src/graphql/print-schema';

describe('schema/schema.graphql', () => {
  it('matches the schema the code emits', async () => {
    const emitted = await printGatewaySchema();
    const committed = await readFile(path.join(__dirname, '../..', SCHEMA_FILE), 'utf8').catch(
      () => '',
    );
    if (committed !== emitted) {
      throw new Error(
        `${SCHEMA_FILE} differs from the schema the resolvers emit: run \`npm run schema\` and commit the file`,
      );
    }
  });
});
