import path from 'node:path';
import type { GatewayConfig } from '../config';

export interface BannerFacts {
  /** The address the server listens on, as fastify reports it. */
  address: string;
  config: GatewayConfig;
  /** The admin token when this very start generated it, else null. */
  generatedAdminToken: string | null;
}

/** Where the admin token is, so a user who missed its first print can always find it again. */
function adminTokenLine(facts: BannerFacts): string {
  const { config, generatedAdminToken } = facts;
  if (config.adminToken !== undefined) return 'Admin token:  the ADMIN_TOKEN variable';
  const where =
    config.mongodbUri === undefined
      ? `kept in ${path.join(config.dataDir, 'admin-token')}`
      : 'kept in the database (collection gateway_secrets, document "admin-token")';
  return generatedAdminToken === null
    ? `Admin token:  ${where}`
    : `Admin token:  ${generatedAdminToken} (generated now, ${where})`;
}

/**
 * What the entry prints once listening, last, so whoever waits for it (people, scripts, tests)
 * has everything printed before it: where to go, and where the admin token is.
 */
export function formatBanner(facts: BannerFacts): string {
  const { address } = facts;
  return [
    `Pipeline Gateway listening on ${address}`,
    `  GraphQL:      ${address}/graphql`,
    `  Explorer:     ${address}/graphiql (paste the admin token, or a member token, as shown there)`,
    `  ${adminTokenLine(facts)}`,
    `  Stop:         Ctrl-C (in-flight requests finish first)`,
  ].join('\n');
}
