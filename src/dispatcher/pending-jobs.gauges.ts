import { Injectable, OnModuleInit } from '@nestjs/common';
import { Postgres } from '../database/postgres';
import { MetricsService } from '../metrics/metrics.service';
import { readPendingJobs } from './pending-jobs.statement';

/** Gives /metrics the pending-jobs gauges: webhook_jobs is the dispatcher's, metrics imports no feature. */
@Injectable()
export class PendingJobsGauges implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly postgres: Postgres,
  ) {}

  onModuleInit(): void {
    this.metrics.addPendingJobsGauges(() => readPendingJobs(this.postgres));
  }
}
