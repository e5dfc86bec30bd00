import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtKeyProvider } from './jwt-key.provider';
import { UserCheckService } from './user-check.service';

@Module({
  imports: [
    JwtModule.registerAsync({
      extraProviders: [JwtKeyProvider],
      inject: [JwtKeyProvider],
      useFactory: (key: JwtKeyProvider) => ({
        secret: key.key as unknown as string,
        signOptions: { algorithm: 'HS256', expiresIn: 14_400 },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
    UsersModule,
  ],
  controllers: [AuthController],
  providers: [AuthService, JwtKeyProvider, UserCheckService],
  // For the global JwtAuthGuard (APP_GUARD in AppModule): the key it verifies with, the user check.
  exports: [UserCheckService, JwtKeyProvider],
})
export class AuthModule {}
