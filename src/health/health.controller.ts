import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { NoRateLimit } from '../common/rate-limit/rate-limit.decorators';
import { Public } from '../common/auth/decorators/public.decorator';
import { ApiErrors } from '../common/openapi/decorators';
import { HealthIndicatorSchema, HealthSchema } from './dto/health.response';
import { MigrationsHealthIndicator } from './migrations.health';

/** Terminus' defaults (no-cache headers) without its OpenAPI responses: each handler documents its own. */
const HEALTH_CHECK = { noCache: true, swaggerDocumentation: false };

/** Public and never rate limited (contract section 1). */
@ApiTags('Health')
@ApiExtraModels(HealthIndicatorSchema)
@Public()
@NoRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
  ) {}

  @ApiOperation({
    summary: 'Liveness',
    description: 'The process answers. Public, never rate limited.',
  })
  @ApiOkResponse({ type: HealthSchema, description: 'Alive' })
  @Get('live')
  @HealthCheck(HEALTH_CHECK)
  live() {
    return this.health.check([]);
  }

  @ApiOperation({
    summary: 'Readiness',
    description: 'The database is reachable and every migration applied. Public, never rate limited.',
  })
  @ApiOkResponse({ type: HealthSchema, description: 'Ready' })
  @ApiErrors([503, 'Not ready: the database is unreachable or a migration is not applied'])
  @Get('ready')
  @HealthCheck(HEALTH_CHECK)
  ready() {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 2000 }),
      () => this.migrations.isApplied('migrations'),
    ]);
  }
}
