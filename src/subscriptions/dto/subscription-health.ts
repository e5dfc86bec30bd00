import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsEnum, IsOptional } from 'class-validator';

/** What a subscription's recorded attempts say of its receiver (contract section 11). */
export enum SubscriptionHealthStatus {
  HEALTHY = 'HEALTHY',
  FAILING = 'FAILING',
  UNKNOWN = 'UNKNOWN',
}

/** The health columns as the service reads them (entity Subscription). */
export interface HealthColumns {
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  consecutiveFailures: number;
}

/** The SELECT list of the health columns, named as the entity names them. */
export const HEALTH_COLUMNS = `last_attempt_at AS "lastAttemptAt", last_success_at AS "lastSuccessAt",
  failing_since AS "failingSince", consecutive_failures AS "consecutiveFailures"`;

/**
 * The status in SQL, for the list filter: the same rule as toSubscriptionHealth (the CHECK of
 * migration SubscriptionHealth keeps the columns consistent with it).
 */
export const HEALTH_STATUS_SQL = `CASE WHEN last_attempt_at IS NULL THEN 'UNKNOWN'
  WHEN consecutive_failures > 0 THEN 'FAILING' ELSE 'HEALTHY' END`;

const dateTime = (description: string) =>
  ApiProperty({ type: String, format: 'date-time', nullable: true, description, example: null });

@ApiSchema({
  name: 'SubscriptionHealth',
  description:
    'Kept current by every recorded attempt: FAILING from the first FAILED attempt after a success ' +
    '(or from the start), HEALTHY again at the next SUCCESS, UNKNOWN before any attempt.',
})
export class SubscriptionHealth {
  @ApiProperty({
    enum: SubscriptionHealthStatus,
    enumName: 'SubscriptionHealthStatus',
    description:
      'UNKNOWN: no attempt yet; FAILING: the latest attempts failed; HEALTHY: the latest succeeded',
    example: SubscriptionHealthStatus.HEALTHY,
  })
  status: SubscriptionHealthStatus;
  @dateTime('When the latest recorded attempt started; null before any')
  lastAttemptAt: string | null;
  @dateTime('When the latest successful attempt started; null before any')
  lastSuccessAt: string | null;
  @dateTime('When the current run of failures began (its first attempt); null unless FAILING')
  failingSince: string | null;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'FAILED attempts since the last SUCCESS',
    example: 0,
  })
  consecutiveFailures: number;
}

export function toSubscriptionHealth(columns: HealthColumns): SubscriptionHealth {
  const status =
    columns.lastAttemptAt === null
      ? SubscriptionHealthStatus.UNKNOWN
      : columns.consecutiveFailures > 0
        ? SubscriptionHealthStatus.FAILING
        : SubscriptionHealthStatus.HEALTHY;
  return {
    status,
    lastAttemptAt: columns.lastAttemptAt?.toISOString() ?? null,
    lastSuccessAt: columns.lastSuccessAt?.toISOString() ?? null,
    failingSince: columns.failingSince?.toISOString() ?? null,
    consecutiveFailures: columns.consecutiveFailures,
  };
}

const HEALTH_VALUES = Object.values(SubscriptionHealthStatus).join(', ');

/** The `health` filter of both subscription lists (contract section 11). */
export const HealthFilter = () =>
  applyDecorators(
    ApiPropertyOptional({
      enum: SubscriptionHealthStatus,
      enumName: 'SubscriptionHealthStatus',
      description: 'Only subscriptions of this health',
      example: SubscriptionHealthStatus.FAILING,
    }),
    IsOptional(),
    IsEnum(SubscriptionHealthStatus, { message: `health must be one of ${HEALTH_VALUES}` }),
  );
