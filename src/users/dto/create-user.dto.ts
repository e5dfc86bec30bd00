import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsEnum,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  Min,
} from 'class-validator';
import { MAX_STRING_LENGTH, UserRole } from '../../common/reference/enums';
import { ReadOnlyResourceFields } from '../../common/validation/read-only-fields';
import { Chars, MaxChars, NoControlCharacters } from '../../common/validation/text-rules';

/**
 * POST /admin/users (contract section 2). Lengths count characters as PostgreSQL does (Chars); the
 * read-only fields of a user (id, createdAt, updatedAt, _links) are accepted and ignored.
 */
@ApiSchema({
  name: 'CreateUserRequest',
  description:
    'A new user (administrators only). Read-only fields of a user (id, createdAt, updatedAt, ' +
    '_links) are accepted and ignored; any other unknown field is a 400.',
})
export class CreateUserDto extends ReadOnlyResourceFields {
  @ApiProperty({
    type: String,
    format: 'email',
    maxLength: 255,
    description: 'Login e-mail, unique (case-insensitive)',
    example: 'maria@acme.com',
  })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxChars(MAX_STRING_LENGTH)
  email: string;

  @ApiProperty({
    type: String,
    format: 'password',
    minLength: 8,
    maxLength: 255,
    description: 'Password; stored as a hash, never returned',
    example: 'correct horse battery staple',
  })
  @IsString()
  @Chars(8, MAX_STRING_LENGTH)
  password: string;

  @ApiProperty({
    enum: UserRole,
    enumName: 'UserRole',
    description:
      "ROLE_PARTNER (the partner's resources), ROLE_CLIENT (the client's), ROLE_BRANCH (the branch's)",
    example: UserRole.ROLE_PARTNER,
  })
  @IsEnum(UserRole, { message: `role must be one of ${Object.values(UserRole).join(', ')}` })
  role: UserRole;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'Tenant the user belongs to (a partner acts on its own tenant only); no control characters',
    example: 'acme',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  tenant: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 2_147_483_647,
    description: 'Id of the partner or client',
    example: 42,
  })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  partnerId: number;

  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'Associated partner name (no control characters)',
    example: 'Acme Ltda',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  partnerName: string;

  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'User name (no control characters)',
    example: 'Maria Silva',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  userName?: string;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Administrators act on every tenant and reach the /admin endpoints',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  administrator?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'The user is of hub type',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  hub?: boolean;
}
