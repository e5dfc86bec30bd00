import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../common/auth/decorators/public.decorator';
import { NoRateLimit } from '../common/rate-limit/rate-limit.decorators';
import { ApiErrors, BEARER_SCHEME } from '../common/openapi/decorators';
import { MetricsAuthGuard } from './metrics-auth.guard';
import { MetricsService } from './metrics.service';

/** For a Prometheus scraper (contract section 9); never rate limited. */
@ApiTags('Metrics')
@Public() // to the global JWT guard only: MetricsAuthGuard checks the token
@NoRateLimit()
@UseGuards(MetricsAuthGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      "Prometheus text format. Needs an administrator's token, or `Authorization: Bearer <METRICS_TOKEN>` " +
      'when the service has one; anything else is 401. Never rate limited.',
  })
  @ApiBearerAuth(BEARER_SCHEME)
  @ApiOkResponse({
    description: 'Every metric of this instance',
    content: { 'text/plain': { schema: { type: 'string', example: 'webhook_jobs_pending 0\n' } } },
  })
  @ApiErrors(401)
  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}
