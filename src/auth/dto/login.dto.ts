import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Login request (spec): both fields required; a malformed e-mail is simply not a known account (401). */
export class LoginDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  email: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  password: string;
}
