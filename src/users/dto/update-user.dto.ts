import { IsBoolean, IsEnum, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { UserRole } from '../../common/reference/enums';

/** PATCH /admin/users/{id}: any of these (contract section 2). */
export class UpdateUserDto {
  @IsOptional() @IsBoolean() enabled?: boolean;
  @IsOptional() @IsString() @MinLength(8) @MaxLength(255) password?: string;
  @IsOptional()
  @IsEnum(UserRole, { message: `role must be one of ${Object.values(UserRole).join(', ')}` })
  role?: UserRole;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) partnerName?: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) userName?: string;
  @IsOptional() @IsBoolean() hub?: boolean;
  @IsOptional() @IsBoolean() administrator?: boolean;
}
