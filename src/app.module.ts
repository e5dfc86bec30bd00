import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { AuthModule } from './auth/auth.module';
import { JwtAuthGuard } from './auth/guards/jwt-auth.guard';
import { RolesGuard } from './auth/guards/roles.guard';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { RateLimitGuard } from './common/rate-limit/rate-limit.guard';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { createValidationPipe } from './common/validation/validation.pipe';
import { AppConfigModule } from './config/app-config.module';
import type { AppConfig } from './config/configuration';
import { DatabaseModule } from './database/database.module';
import { entities } from './entities';
import { HealthModule } from './health/health.module';
import { UsersModule } from './users/users.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { DispatcherModule } from './dispatcher';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { PartnerToolsModule } from './partner-tools/partner-tools.module';
import { EventTypesModule } from './event-types/event-types.module';
import { MetricsModule } from './metrics/metrics.module';
import { RetentionModule } from './retention/retention.module';
import { PortalModule } from './portal/portal.module';

@Module({})
export class AppModule {
  /** `databaseUrl`: DATABASE_URL, or the embedded server's (main.ts resolves it before Nest starts). */
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, entities),
        EventEmitterModule.forRoot(),
        RateLimitModule,
        HealthModule,
        UsersModule,
        AuthModule,
        SubscriptionsModule,
        DispatcherModule,
        DeliveriesModule,
        PartnerToolsModule,
        EventTypesModule,
        MetricsModule,
        RetentionModule,
        PortalModule,
      ],
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // Order matters: authentication (which counts a refused request against its client IP), then
        // the rate limit (a verified token by its signature), then roles (contract section 8).
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useExisting: RateLimitGuard },
        { provide: APP_GUARD, useClass: RolesGuard },
      ],
    };
  }
}
