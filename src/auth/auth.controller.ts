import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { LoginRateLimit } from '../common/rate-limit/rate-limit.decorators';
import { AuthService } from './auth.service';
import type { AuthenticatedUser } from './authenticated-user';
import { CurrentUser } from './decorators/current-user.decorator';
import { Public } from './decorators/public.decorator';
import { LoginDto } from './dto/login.dto';
import { LoginResponse, MeResponse, toMeResponse } from './dto/auth.responses';

@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @LoginRateLimit()
  @Post('login')
  @HttpCode(200)
  login(@Body() body: LoginDto): Promise<LoginResponse> {
    return this.auth.login(body.email, body.password);
  }

  @Get('me')
  me(@CurrentUser() user: AuthenticatedUser): MeResponse {
    return toMeResponse(user);
  }
}
