import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';
import { MaxChars } from '../../common/validation/text-rules';

/** Login request (spec): both fields required; a malformed e-mail is simply not a known account (401). */
@ApiSchema({ name: 'LoginRequest', description: 'E-mail and password of the user' })
export class LoginDto {
  @ApiProperty({
    type: String,
    minLength: 1,
    maxLength: 255,
    description: 'User e-mail (case-insensitive)',
    example: 'maria@acme.com',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  email: string;

  @ApiProperty({
    type: String,
    format: 'password',
    minLength: 1,
    maxLength: 255,
    description: 'Account password',
    example: 'correct horse battery staple',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  password: string;
}
