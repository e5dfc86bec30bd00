import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { halLinks, HalLinks, SelfLinks } from '../../common/hal/hal';
import { renderRole } from '../../common/reference/enums';
import type { AuthenticatedUser } from '../../common/auth/authenticated-user';

/** Login response (spec). */
@ApiSchema({ name: 'LoginResponse', description: 'A bearer token and its lifetime' })
export class LoginResponse {
  @ApiProperty({
    type: String,
    description: 'JWT (HS256) to send as `Authorization: Bearer <token>`',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
  })
  token: string;
  @ApiProperty({
    type: 'integer',
    description: 'Milliseconds until the token expires: 14400000 (4 hours)',
    example: 14_400_000,
  })
  expiresIn: number;
}

/** otherInformation of GET /auth/me. */
@ApiSchema({ name: 'OtherInformation', description: 'Partner details of the user' })
export class OtherInformation {
  @ApiProperty({ type: Boolean, description: 'The user is of hub type', example: false }) hub: boolean;
  @ApiProperty({ type: String, description: 'Associated partner name', example: 'Acme Ltda' })
  partnerName: string;
  @ApiProperty({ type: String, description: 'User name', example: 'Maria Silva' }) userName: string;
  @ApiProperty({ type: 'integer', description: 'Id of the partner or client', example: 42 })
  partnerId: number;
}

/** Current user (spec, GET /auth/me). */
@ApiSchema({ name: 'CurrentUser', description: 'Identity and role of the authenticated user' })
export class MeResponse {
  @ApiProperty({
    type: String,
    format: 'email',
    description: 'E-mail of the user',
    example: 'maria@acme.com',
  })
  user: string;
  @ApiProperty({ type: Boolean, description: 'Whether the token is valid: true on every 200', example: true })
  isValidToken: boolean;
  @ApiProperty({ type: Boolean, description: 'Whether the user is an administrator', example: false })
  isAdministrator: boolean;
  @ApiProperty({ type: OtherInformation })
  otherInformation: OtherInformation;
  @ApiProperty({
    type: String,
    enum: ['[[ROLE_PARTNER]]', '[[ROLE_USER]]', '[[ROLE_BRANCH]]'],
    description: 'The role wrapped in double square brackets; ROLE_CLIENT is rendered [[ROLE_USER]]',
    example: '[[ROLE_PARTNER]]',
  })
  role: string;
  @ApiProperty({ type: SelfLinks, description: 'HAL links' })
  _links: HalLinks;
}

export function toMeResponse(user: AuthenticatedUser): MeResponse {
  return {
    user: user.email,
    isValidToken: true,
    isAdministrator: user.isAdministrator,
    otherInformation: {
      hub: user.hub,
      partnerName: user.partnerName,
      userName: user.userName,
      partnerId: user.partnerId,
    },
    role: renderRole(user.role),
    _links: halLinks({ self: '/auth/me' }),
  };
}
