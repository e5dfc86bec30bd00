import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Allow, IsBoolean, IsEnum, IsNotEmpty, IsString } from 'class-validator';
import { MAX_STRING_LENGTH, UserRole } from '../../common/reference/enums';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { ReadOnlyResourceFields } from '../../common/validation/read-only-fields';
import { Chars, MaxChars, NoControlCharacters } from '../../common/validation/text-rules';

/** Fields a user is returned with that PATCH cannot change (see UpdateUserDto). */
export const FIXED_USER_FIELDS = ['email', 'tenant', 'partnerId', 'isAdministrator'] as const;

/**
 * PATCH /admin/users/{id}: any of the changeable fields (contract section 2); each may be left out,
 * none be null. So that a client can GET a user, change it and send the whole body back (contract
 * section 4): id, createdAt, updatedAt and _links are ignored, and the fields PATCH cannot change
 * (FIXED_USER_FIELDS: email, tenant, partnerId, and isAdministrator, which is changed through
 * `administrator`) are ignored while they equal the stored value; a different value is a 400 naming
 * the field (UsersService.update), never silently dropped. Any other unknown field is a 400.
 */
@ApiSchema({
  name: 'UpdateUserRequest',
  description:
    'Any of these fields; each may be left out, none may be null. A user as GET returns it may be ' +
    'sent back: id, createdAt, updatedAt and _links are ignored, and email, tenant, partnerId and ' +
    'isAdministrator are ignored when unchanged (a different value is a 400: they cannot be changed; ' +
    'the administrator flag is changed with `administrator`). Any other unknown field is a 400.',
})
export class UpdateUserDto extends ReadOnlyResourceFields {
  @Allow() email?: unknown;
  @Allow() tenant?: unknown;
  @Allow() partnerId?: unknown;
  @Allow() isAdministrator?: unknown;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'A disabled user cannot log in (401) and its tokens get 403',
    example: false,
  })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
  @ApiPropertyOptional({
    type: String,
    format: 'password',
    minLength: 8,
    maxLength: 255,
    description: 'New password',
  })
  @OptionalNotNull()
  @IsString()
  @Chars(8, MAX_STRING_LENGTH)
  password?: string;
  @ApiPropertyOptional({
    enum: UserRole,
    enumName: 'UserRole',
    description: 'New role',
    example: UserRole.ROLE_PARTNER,
  })
  @OptionalNotNull()
  @IsEnum(UserRole, { message: `role must be one of ${Object.values(UserRole).join(', ')}` })
  role?: UserRole;
  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'Associated partner name (no control characters)',
    example: 'Acme Ltda',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  partnerName?: string;
  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'User name (no control characters)',
    example: 'Maria Silva',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  userName?: string;
  @ApiPropertyOptional({ type: Boolean, description: 'The user is of hub type' })
  @OptionalNotNull()
  @IsBoolean()
  hub?: boolean;
  @ApiPropertyOptional({ type: Boolean, description: 'Administrators act on every tenant' })
  @OptionalNotNull()
  @IsBoolean()
  administrator?: boolean;
}
