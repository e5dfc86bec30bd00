import { Body, Controller, Get, HttpCode, Ip, Post, Req } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../common/http/bearer-token';
import { LoginRateLimit } from '../common/rate-limit/rate-limit.decorators';
import { ApiErrors } from '../common/openapi/decorators';
import { AuthService } from './auth.service';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { CurrentUser } from '../common/auth/decorators/current-user.decorator';
import { Public } from '../common/auth/decorators/public.decorator';
import { NoBody } from '../common/validation/no-body';
import { LoginDto } from './dto/login.dto';
import { LoginResponse, MeResponse, toMeResponse } from './dto/auth.responses';

@ApiTags('Authentication')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @ApiOperation({
    summary: 'Log in',
    description:
      'Exchanges e-mail and password for a JWT access token, valid for 14400000 ms (4 hours). ' +
      'A wrong password, an unknown e-mail and a disabled account all answer the same 401. ' +
      'Rate limited to 10 requests per minute per client IP.',
  })
  @ApiBody({
    type: LoginDto,
    examples: {
      login: {
        summary: 'A partner user',
        value: { email: 'maria@acme.com', password: 'correct horse battery staple' },
      },
    },
  })
  @ApiOkResponse({ type: LoginResponse, description: 'Logged in' })
  @ApiErrors(
    [400, 'email or password missing or not a string (`errors` names them), malformed JSON'],
    [401, 'Invalid credentials'],
    413,
    415,
    [429, 'More than 10 logins a minute from this IP; see Retry-After (seconds)'],
  )
  @Public()
  @LoginRateLimit()
  @Post('login')
  @HttpCode(200)
  login(@Body() body: LoginDto, @Ip() clientIp: string): Promise<LoginResponse> {
    return this.auth.login(body.email, body.password, clientIp);
  }

  @ApiOperation({
    summary: 'Current user',
    description: 'Identity and role of the user the token belongs to.',
  })
  @ApiOkResponse({ type: MeResponse, description: 'The current user' })
  @ApiErrors(
    [401, 'Missing, invalid or expired token, or the user no longer exists'],
    [403, 'The account is disabled'],
    429,
  )
  @Get('me')
  me(@CurrentUser() user: AuthenticatedUser): MeResponse {
    return toMeResponse(user);
  }

  @ApiOperation({
    summary: 'Log out',
    description:
      "Refuses this token from now on (401), on every instance within the user check's cache bound " +
      "(USER_CACHE_TTL_MS); the user's other tokens keep working.",
  })
  @ApiNoContentResponse({ description: 'Logged out' })
  @ApiErrors(
    [400, 'A body with a field (this route takes none)'],
    [401, 'Missing, invalid or expired token'],
    [403, 'The account is disabled'],
    429,
  )
  @Post('logout')
  @HttpCode(204)
  async logout(@Req() request: FastifyRequest, @NoBody() _body: undefined): Promise<void> {
    // The guard let the request in: its Authorization header holds a valid bearer token.
    await this.auth.logout(bearerToken(request.headers.authorization)!);
  }
}
