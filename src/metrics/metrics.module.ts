import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MetricsAuthGuard } from './metrics-auth.guard';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** Global: the features that count something (the dispatcher's deliveries) inject MetricsService. */
@Global()
@Module({
  imports: [AuthModule],
  controllers: [MetricsController],
  providers: [MetricsService, MetricsAuthGuard],
  exports: [MetricsService],
})
export class MetricsModule {}
