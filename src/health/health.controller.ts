import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { NoRateLimit } from '../common/rate-limit/rate-limit.decorators';
import { Public } from '../auth/decorators/public.decorator';
import { MigrationsHealthIndicator } from './migrations.health';

/** Public and never rate limited (contract section 1). */
@Public()
@NoRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 2000 }),
      () => this.migrations.isApplied('migrations'),
    ]);
  }
}
