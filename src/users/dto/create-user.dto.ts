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
export class CreateUserDto {
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(255)
  email: string;

  @IsString()
  @MinLength(8)
  @MaxLength(255)
  password: string;

  @IsEnum(UserRole, { message: `role must be one of ${Object.values(UserRole).join(', ')}` })
  role: UserRole;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  tenant: string;

  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  partnerId: number;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  partnerName: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  userName?: string;

  @IsOptional()
  @IsBoolean()
  administrator?: boolean;

  @IsOptional()
  @IsBoolean()
  hub?: boolean;
}
