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
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { UserRole } from '../../common/reference/enums';

/** POST /admin/users (contract section 2). */
@ApiSchema({ name: 'CreateUserRequest', description: 'A new user (administrators only)' })
export class CreateUserDto {
  @ApiProperty({
    type: String,
    format: 'email',
    maxLength: 255,
    description: 'Login e-mail, unique (case-insensitive)',
    example: 'maria@acme.com',
  })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(255)
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
  @MinLength(8)
  @MaxLength(255)
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
    description: 'Tenant the user belongs to (a partner acts on its own tenant only)',
    example: 'acme',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
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
    description: 'Associated partner name',
    example: 'Acme Ltda',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  partnerName: string;

  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'User name',
    example: 'Maria Silva',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
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
