import { print } from 'graphql';
import { ExplorerOverviewDocument } from '../../generated/graphql';

/**
 * The explorer's default query: the `ExplorerOverview` operation (src/graphql/operations), taken
 * from the generated typed document so it is checked against the schema by codegen, under a short
 * how-to.
 */
export const EXPLORER_DEFAULT_QUERY = `# Pipeline Gateway: the latest snapshot's pipeline graph with metrics.
# 1. In "Headers" below, replace the placeholder with the token printed when the gateway started.
# 2. Press the run button (or Ctrl-Enter). The "Docs" panel on the left explores the schema.

${print(ExplorerOverviewDocument)}`;

/** JSON text of the header editor: where to paste the token. */
export const EXPLORER_DEFAULT_HEADERS = `${JSON.stringify({ Authorization: 'Bearer <paste the token printed at start>' }, null, 2)}\n`;
