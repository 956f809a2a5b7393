import type { Principal } from '../../auth/principal';
import type { RequestContext } from '../../context/request-context';
import { UnauthenticatedError } from '../../errors';

/** The caller of a GraphQL operation; services need one, so an anonymous context is a 401. */
export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new UnauthenticatedError();
  return ctx.principal;
}
