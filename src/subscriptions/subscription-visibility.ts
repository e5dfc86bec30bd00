import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { Conditions } from '../common/paging/conditions';

/**
 * The one 404 of a subscription that does not exist or that the user may not see (contract section
 * 3: another tenant's is not revealed). The subscription's own routes name the id they were given;
 * the routes under it (its deliveries) do not. Also IdParamPipe's, for ids past `integer`.
 */
export const subscriptionNotFound = (id?: number | string) =>
  id === undefined ? 'Subscription not found' : `Subscription ${id} not found`;

/** A non-administrator sees its own tenant; an administrator every tenant, or the one it asks for. */
export function visibleTo(user: AuthenticatedUser, tenantFilter?: string): Conditions {
  const conditions = new Conditions();
  const tenant = user.isAdministrator ? tenantFilter : user.tenant;
  return tenant === undefined ? conditions : conditions.add((p) => `tenant = ${p}`, tenant);
}
