import type { Principal } from '../../auth/principal';
import type { RequestContext } from '../../context/request-context';
import { UnauthenticatedError } from '../../errors';

/** The caller of an authenticated route; the route layer has already authenticated it. */
export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new UnauthenticatedError();
  return ctx.principal;
}
