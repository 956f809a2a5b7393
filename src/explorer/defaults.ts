import { print } from 'graphql';
import { ExplorerOverviewDocument } from '../generated/graphql';

/** Longest line of the how-to above the default query, in characters. */
export const EXPLORER_HOWTO_WIDTH = 30;

/**
 * The explorer's default query: the `ExplorerOverview` operation (src/graphql/operations), taken
 * from the generated typed document so it is checked against the schema by codegen, under a short
 * how-to. Its lines stay within `EXPLORER_HOWTO_WIDTH` characters: the query editor is about 35
 * wide in a 1280-pixel window with the side panel open, and a cut-off instruction is no help.
 */
export const EXPLORER_DEFAULT_QUERY = `# Pipeline Gateway explorer
# 1. Paste the token printed
#    at start into Headers,
#    below this query.
# 2. Run the query: the pink
#    button or Ctrl-Enter.
# Docs (left) has the schema.

${print(ExplorerOverviewDocument)}`;

/** JSON text of the header editor: where to paste the token. */
export const EXPLORER_DEFAULT_HEADERS = `${JSON.stringify({ Authorization: 'Bearer <paste the token printed at start>' }, null, 2)}\n`;
