import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { halLinks, HalLinks, SelfLinks } from '../../common/hal/hal';
import { UserRole } from '../../common/reference/enums';
import { ApiDateTime } from '../../common/openapi/schemas';
import type { User } from '../user.entity';

/** A user as the admin endpoints return it: never the password or its hash. */
@ApiSchema({ name: 'User', description: 'A user account (never its password or hash)' })
export class UserResponse {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Identifier', example: 12 }) id: number;
  @ApiProperty({ type: String, format: 'email', description: 'Login e-mail', example: 'maria@acme.com' })
  email: string;
  @ApiProperty({
    enum: UserRole,
    enumName: 'UserRole',
    description: 'Stored role (GET /auth/me renders ROLE_CLIENT as [[ROLE_USER]])',
    example: UserRole.ROLE_PARTNER,
  })
  role: UserRole;
  @ApiProperty({ type: Boolean, description: 'Administrator (acts on every tenant)', example: false })
  isAdministrator: boolean;
  @ApiProperty({ type: Boolean, description: 'The user is of hub type', example: false }) hub: boolean;
  @ApiProperty({ type: String, description: 'Tenant the user belongs to', example: 'acme' }) tenant: string;
  @ApiProperty({ type: 'integer', description: 'Id of the partner or client', example: 42 })
  partnerId: number;
  @ApiProperty({ type: String, description: 'Associated partner name', example: 'Acme Ltda' })
  partnerName: string;
  @ApiProperty({ type: String, description: 'User name', example: 'Maria Silva' }) userName: string;
  @ApiProperty({ type: Boolean, description: 'A disabled user cannot log in', example: true })
  enabled: boolean;
  @ApiDateTime('When it was created (assigned)')
  createdAt: string;
  @ApiDateTime('When it was last changed (assigned)')
  updatedAt: string;
  @ApiProperty({ type: SelfLinks, description: 'HAL links' }) _links: HalLinks;
}

export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    isAdministrator: user.isAdministrator,
    hub: user.hub,
    tenant: user.tenant,
    partnerId: user.partnerId,
    partnerName: user.partnerName,
    userName: user.userName,
    enabled: user.enabled,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
    _links: halLinks({ self: `/admin/users/${user.id}` }),
  };
}
