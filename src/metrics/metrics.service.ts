import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DeliveryStatus, DeliveryTrigger } from '../common/reference/enums';
import { Postgres, PoolUsage } from '../database/postgres';

/** What started an attempt (contract section 9, Delivery records). */
const TRIGGERS = Object.values(DeliveryTrigger);

export interface DeliveryAttempt {
  outcome: DeliveryStatus;
  trigger: DeliveryTrigger;
  /** From the request's start to the end of the answer or the failure. */
  durationMs: number;
  /**
   * When the event was published (for a resend, recovery or test: when it was asked for); the
   * attempt started at `publishedAt` + the latency observed.
   */
  publishedAt: Date;
  /** When the attempt started (default: `durationMs` ago). */
  sentAt?: Date;
}

/** One series of http_requests_total: requests answered so far, and how many prom-client has. */
interface HttpSeries {
  labels: { method: string; route: string; status: string };
  answered: number;
  reported: number;
}

/** The label of requests no route matched (404s): never the raw URL. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * The service's Prometheus metrics (contract section 9, Metrics), in a registry of this
 * application's own: tests run several applications in one process, and prom-client's global
 * registry would mix them. No label carries a tenant, a URL or an e-mail: routes are patterns.
 */
/** What the dispatcher reports of its pending jobs (webhook_jobs_pending and the oldest's age). */
export interface PendingJobs {
  count: number;
  /** Seconds since the oldest pending job was published; 0 when none is pending. */
  oldestAgeSeconds: number;
}

@Injectable()
export class MetricsService implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  readonly registry = new Registry();

  private readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Delivery attempts that ended, by outcome and trigger',
    labelNames: ['outcome', 'trigger'] as const,
    registers: [this.registry],
  });
  private readonly deliveryDuration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: "Delivery attempts: from the request's start to the end of the answer or the failure",
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly publishToAttempt = new Histogram({
    name: 'webhook_publish_to_attempt_seconds',
    help: "From an event's publication to the start of an attempt to deliver it",
    labelNames: ['trigger'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [this.registry],
  });
  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    // Counted per request in httpSeries, handed to prom-client at each scrape.
    collect: () => this.reportHttpRequests(),
  });
  private readonly rateLimited = new Counter({
    name: 'http_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429), by route pattern',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  /**
   * Children by their label values joined with "|": a label look-up in prom-client hashes the
   * labels on every call, these are one Map read per delivery or request.
   */
  private readonly deliveryChildren = new Map<
    string,
    { attempts: Counter.Internal; duration: Histogram.Internal<string>; latency: Histogram.Internal<string> }
  >();
  /**
   * Requests answered, by route pattern, method and status: nested maps, so counting a request
   * builds no key string and allocates nothing (the pattern and method strings are the same
   * objects on every request). A prom-client child's inc() hashes its labels into a new string on
   * every call; here that happens once per series per scrape.
   */
  private readonly httpSeries = new Map<string, Map<string, Map<number, HttpSeries>>>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly postgres: Postgres,
  ) {
    collectDefaultMetrics({ register: this.registry });
    // Every outcome and trigger from the start, at 0: a rate over a series that appears late misses its first count.
    for (const outcome of Object.values(DeliveryStatus)) {
      for (const trigger of TRIGGERS) {
        const attempts = this.deliveries.labels(outcome, trigger);
        attempts.inc(0);
        const duration = this.deliveryDuration.labels(outcome);
        const latency = this.publishToAttempt.labels(trigger);
        this.deliveryChildren.set(`${outcome}|${trigger}`, { attempts, duration, latency });
      }
    }
    this.addDatabasePoolGauges();
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      this.httpRequestAnswered(request, reply);
      done();
    });
  }

  /** Called once for each attempt that ended with an outcome (not for one cut off by shutdown). */
  deliveryAttempted(attempt: DeliveryAttempt): void {
    const children = this.deliveryChildren.get(`${attempt.outcome}|${attempt.trigger}`);
    if (!children) return;
    const sentAt = attempt.sentAt?.getTime() ?? Date.now() - attempt.durationMs;
    children.attempts.inc();
    children.duration.observe(attempt.durationMs / 1000);
    children.latency.observe(Math.max(0, sentAt - attempt.publishedAt.getTime()) / 1000);
  }

  /** The Prometheus text format of every metric; gauges read from the database are read now. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  private httpRequestAnswered(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = request.method;
    const status = reply.statusCode;
    let byMethod = this.httpSeries.get(route);
    if (!byMethod) this.httpSeries.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, answered: 0, reported: 0 };
      byStatus.set(status, series);
    }
    series.answered++;
    // The rate-limit guard's refusals: counted here, whichever guard or storage refused.
    if (status === 429) this.rateLimited.labels(route).inc();
  }

  /** http_requests_total's collect(): what each series counted since the last scrape. */
  private reportHttpRequests(): void {
    for (const byMethod of this.httpSeries.values()) {
      for (const byStatus of byMethod.values()) {
        for (const series of byStatus.values()) {
          if (series.answered === series.reported) continue;
          this.httpRequests.inc(series.labels, series.answered - series.reported);
          series.reported = series.answered;
        }
      }
    }
  }

  /**
   * Pending jobs and the age of the oldest: one query per scrape, shared by both gauges. The
   * dispatcher registers its reader (it owns webhook_jobs); metrics knows no feature.
   */
  addPendingJobsGauges(readPendingJobs: () => Promise<PendingJobs>): void {
    let reading: Promise<PendingJobs | undefined> | undefined;
    const read = () =>
      (reading ??= readPendingJobs()
        .catch((error: unknown) => {
          // The scrape still answers; the gauges keep their last values.
          this.logger.warn({ err: error }, 'reading pending webhook jobs for /metrics failed');
          return undefined;
        })
        .finally(() => (reading = undefined)));
    const gauges: Array<[name: string, help: string, pick: (jobs: PendingJobs) => number]> = [
      ['webhook_jobs_pending', 'Deliveries waiting to be attempted (all instances)', (j) => j.count],
      [
        'webhook_jobs_oldest_pending_age_seconds',
        'Age of the oldest pending delivery (0 when none is pending)',
        (j) => j.oldestAgeSeconds,
      ],
    ];
    for (const [name, help, pick] of gauges) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const jobs = await read();
          if (jobs) this.set(pick(jobs));
        },
      });
    }
  }

  /** node-postgres' pool behind TypeORM: its connections, idle ones, and queries waiting for one. */
  private addDatabasePoolGauges(): void {
    const postgres = this.postgres;
    const gauges: Array<[name: string, help: string, read: (pool: PoolUsage) => number]> = [
      ['db_pool_connections', 'Connections open in the database pool', (p) => p.connections],
      ['db_pool_idle_connections', 'Idle connections in the database pool', (p) => p.idle],
      ['db_pool_waiting_clients', 'Queries waiting for a database pool connection', (p) => p.waiting],
    ];
    for (const [name, help, read] of gauges) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const usage = postgres.poolUsage();
          if (usage) this.set(read(usage));
        },
      });
    }
  }
}
