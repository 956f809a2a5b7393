import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_TOKEN_SUBJECT } from '../auth/authenticator';
import { constantTimeEquals } from '../auth/constant-time';
import type { TokenSigner } from '../auth/jwt';

declare module 'fastify' {
  interface FastifyRequest {
    /** Verified token subject (member id or `admin-token`), or null; for rate limits and logs, not for access decisions. */
    tokenSubject: string | null;
  }
}

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

/**
 * Works out who sent the request before routing, from a token whose signature checks out (an
 * unverified `sub` would let a client pick its own rate-limit bucket). Access control stays with
 * the Authenticator; this never rejects anything.
 */
export function registerRequestSubject(app: FastifyInstance, options: { signer: TokenSigner; adminToken: string | undefined }): void {
  app.decorateRequest('tokenSubject', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) return;
    const token = match[1];
    if (options.adminToken !== undefined && constantTimeEquals(token, options.adminToken)) {
      request.tokenSubject = ADMIN_TOKEN_SUBJECT;
      return;
    }
    try {
      request.tokenSubject = (await options.signer.verify(token)).memberId;
    } catch {
      // Not a valid token: the caller is known by address only; the route answers the 401.
    }
  });
}
