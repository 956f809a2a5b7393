import { print } from 'graphql';
import { ExplorerOverviewDocument } from '../../generated/graphql';

/**
 * The explorer's default query: the `ExplorerOverview` operation (src/graphql/operations), taken
 * from the generated typed document so it is checked against the schema by codegen, under a short
 * how-to.
 */
export const EXPLORER_DEFAULT_QUERY = `# Pipeline Gateway: the latest pipeline graph.
# 1. Paste the token printed at start into
#    Headers (below), in place of <paste ...>.
# 2. Run it: the pink button or Ctrl-Enter.
# Docs (left) browses the whole schema.

${print(ExplorerOverviewDocument)}`;

/** JSON text of the header editor: where to paste the token. */
export const EXPLORER_DEFAULT_HEADERS = `${JSON.stringify({ Authorization: 'Bearer <paste the token printed at start>' }, null, 2)}\n`;
