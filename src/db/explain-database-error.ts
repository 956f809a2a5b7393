import { maskUri } from '../config';

/** Where the database was looked for: MONGODB_URI, or the embedded server in DATA_DIR. */
export interface DatabaseWhere {
  mongodbUri: string | undefined;
  dataDir: string;
}

/** A failure to open or prepare the database at start, in words that name the variable at fault. */
export class DatabaseStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseStartError';
  }
}

/** The likely cause of a driver error, from what the driver says; null when nothing fits. */
function likelyCause(text: string): string | null {
  if (/ECONNREFUSED/.test(text))
    return 'nothing accepts connections at that host and port (ECONNREFUSED): is MongoDB running there, and is the port right?';
  if (/ENOTFOUND|EAI_AGAIN|querySrv|getaddrinfo/.test(text))
    return 'the host name does not resolve (ENOTFOUND): check the host in MONGODB_URI';
  if (/Authentication failed|AuthenticationFailed|SASL|SCRAM/i.test(text))
    return 'the server refused the user or password in MONGODB_URI (authentication failed); characters such as @ : / in the password must be percent-encoded';
  if (/requires authentication|Unauthorized|not authorized/i.test(text))
    return 'the server requires credentials MONGODB_URI does not give, or that user may not use this database (authentication required): add user:password@ and, if the user is defined elsewhere, ?authSource=admin';
  if (/ETIMEDOUT|timed out|Server selection/i.test(text))
    return 'no server answered in time: check the host and port, a firewall, and for TLS ?tls=true';
  if (/ECONNRESET|EPIPE|closed/i.test(text))
    return 'the server closed the connection: is it a MongoDB server, and does it expect TLS (?tls=true)?';
  return null;
}

/**
 * A start-up database failure as a message naming the variable and the likely cause, with any
 * credentials of MONGODB_URI masked (`****`), whatever the driver put in its own message.
 */
export function explainDatabaseError(error: unknown, where: DatabaseWhere): DatabaseStartError {
  if (error instanceof DatabaseStartError) return error;
  let detail = error instanceof Error ? error.message : String(error);
  if (where.mongodbUri !== undefined)
    detail = detail.split(where.mongodbUri).join(maskUri(where.mongodbUri));
  if (where.mongodbUri === undefined) {
    return new DatabaseStartError(
      `Cannot open the embedded database in DATA_DIR (${where.dataDir}): ${detail}`,
      { cause: error },
    );
  }
  const cause = likelyCause(detail);
  return new DatabaseStartError(
    `Cannot use the database of MONGODB_URI (${maskUri(where.mongodbUri)}): ${cause ?? detail}${cause ? ` [${detail}]` : ''}`,
    { cause: error },
  );
}

/** Runs a start-up step on the database, its failure explained (explainDatabaseError). */
export async function explainingDatabaseErrors<T>(
  where: DatabaseWhere,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw explainDatabaseError(error, where);
  }
}
