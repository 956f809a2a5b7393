import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SCHEMA_FILE, printGatewaySchema } from './print-schema';

// `npm run schema`: writes the SDL the code emits to schema/schema.graphql (run from the project root).
async function main(): Promise<void> {
  const file = path.resolve(SCHEMA_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, await printGatewaySchema());
  console.log(`wrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
