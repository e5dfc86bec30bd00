import { ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';

/** One indicator of a health check (database, migrations). */
@ApiSchema({ name: 'HealthIndicator' })
export class HealthIndicatorSchema {
  @ApiProperty({ type: String, enum: ['up', 'down'], description: 'State of the indicator', example: 'up' })
  status: string;
  @ApiPropertyOptional({ type: String, description: 'Why it is down', example: 'timeout of 2000ms exceeded' })
  message?: string;
}

/** The 200 body of GET /health/live and /health/ready (@nestjs/terminus). */
@ApiSchema({
  name: 'Health',
  description:
    'Health check result; `details` has every indicator, `info` the ones up, `error` the ones down',
})
export class HealthSchema {
  @ApiProperty({ type: String, enum: ['ok'], description: 'Always ok on a 200', example: 'ok' })
  status: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthIndicatorSchema) },
    description: 'Indicators that are up',
    example: { database: { status: 'up' }, migrations: { status: 'up' } },
  })
  info: Record<string, HealthIndicatorSchema>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthIndicatorSchema) },
    description: 'Indicators that are down (empty on a 200)',
    example: {},
  })
  error: Record<string, HealthIndicatorSchema>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthIndicatorSchema) },
    description: 'Every indicator',
    example: { database: { status: 'up' }, migrations: { status: 'up' } },
  })
  details: Record<string, HealthIndicatorSchema>;
}
