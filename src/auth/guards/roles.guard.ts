import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadataCache } from '../../common/http/route-metadata';
import type { UserRole } from '../../common/reference/enums';
import type { AuthenticatedUser } from '../../common/auth/authenticated-user';
import { ADMIN_ONLY, ROLES } from '../../common/auth/decorators/roles.decorator';

/** Global (APP_GUARD, after the JWT guard): @AdminOnly() and @Roles(...) checks. */
@Injectable()
export class RolesGuard implements CanActivate {
  private readonly rules: RouteMetadataCache<{ adminOnly: boolean; roles: UserRole[] | undefined }>;

  constructor(reflector: Reflector) {
    this.rules = new RouteMetadataCache((targets) => ({
      adminOnly: reflector.getAllAndOverride<boolean | undefined>(ADMIN_ONLY, targets) === true,
      roles: reflector.getAllAndOverride<UserRole[] | undefined>(ROLES, targets),
    }));
  }

  canActivate(context: ExecutionContext): boolean {
    const { adminOnly, roles } = this.rules.get(context);
    if (!adminOnly && !roles) return true;
    const user: AuthenticatedUser | undefined = context.switchToHttp().getRequest().user;
    if (!user) return true; // a @Public() route: nothing to check
    if (user.isAdministrator) return true;
    if (adminOnly) throw new ForbiddenException('Administrators only');
    if (roles && !roles.includes(user.role))
      throw new ForbiddenException('Your role may not use this resource');
    return true;
  }
}
