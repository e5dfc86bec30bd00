import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { TOKEN_TTL_MS } from '../config/configuration';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtKeyProvider } from './jwt-key.provider';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { JwtStrategy } from './strategies/jwt.strategy';
import { UserCheckService } from './user-check.service';

@Module({
  imports: [
    JwtModule.registerAsync({
      extraProviders: [JwtKeyProvider],
      inject: [JwtKeyProvider],
      useFactory: (key: JwtKeyProvider) => ({
        secret: key.key as unknown as string,
        // In seconds, from the one constant the login response's expiresIn also comes from.
        signOptions: { algorithm: 'HS256', expiresIn: TOKEN_TTL_MS / 1000 },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
    PassportModule,
    RateLimitModule,
    UsersModule,
  ],
  controllers: [AuthController],
  providers: [AuthService, JwtKeyProvider, RevokedTokensRepository, UserCheckService, JwtStrategy],
  // The global JwtAuthGuard (AppModule) asks the strategy for tokens it verified before.
  exports: [JwtStrategy],
})
export class AuthModule {}
