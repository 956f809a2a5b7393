import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator';

declare module 'fastify' {
  interface FastifyRequest {
    /** Verified token subject (member id or `admin-token`), or null; for rate limits and logs, not for access decisions. */
    tokenSubject: string | null;
  }
}

/**
 * Works out who sent the request before routing, from a token whose signature checks out (an
 * unverified `sub` would let a client pick its own rate-limit bucket). Access control stays with
 * Authenticator.authenticate; this never rejects anything.
 */
export function registerRequestSubject(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('tokenSubject', null);
  // Callback style: a token verified before is known at once, without a promise per request.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const token = authenticator.tokenOf(request.headers.authorization);
    if (token === null) return done();
    const remembered = authenticator.rememberedSubject(token);
    if (remembered !== undefined) {
      request.tokenSubject = remembered;
      return done();
    }
    authenticator.subjectOf(token).then(
      (subject) => {
        request.tokenSubject = subject;
        done();
      },
      // Not knowable now (a failure, not a bad token): the caller is known by address only.
      () => done(),
    );
  });
}
