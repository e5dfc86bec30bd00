import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MetricsService } from '../metrics/metrics.service';
import { readPendingJobs } from './pending-jobs.statement';

/** Gives /metrics the pending-jobs gauges: webhook_jobs is the dispatcher's, metrics imports no feature. */
@Injectable()
export class PendingJobsGauges implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.metrics.addPendingJobsGauges(() => readPendingJobs(this.dataSource));
  }
}
