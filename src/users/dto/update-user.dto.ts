import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsEnum, IsNotEmpty, IsString } from 'class-validator';
import { MAX_STRING_LENGTH, UserRole } from '../../common/reference/enums';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Chars, MaxChars, NoControlCharacters } from '../../common/validation/text-rules';

/** PATCH /admin/users/{id}: any of these (contract section 2); each may be left out, none be null. */
@ApiSchema({
  name: 'UpdateUserRequest',
  description: 'Any of these fields; each may be left out, none may be null',
})
export class UpdateUserDto {
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
