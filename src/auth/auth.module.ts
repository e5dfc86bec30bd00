import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtKeyProvider } from './jwt-key.provider';
import { JwtStrategy } from './jwt.strategy';
import { UserCheckService } from './user-check.service';

@Module({
  imports: [
    PassportModule,
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
  providers: [AuthService, JwtKeyProvider, JwtStrategy, UserCheckService],
  exports: [UserCheckService],
})
export class AuthModule {}
