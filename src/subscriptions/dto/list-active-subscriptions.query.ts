import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { SortedPageQueryDto } from '../../common/paging/page-query.dto';
import { TenantFilter } from './list-subscriptions.query';
import { HealthFilter, SubscriptionHealthStatus } from './subscription-health';

// Only the two words are booleans; "1", "TRUE", "" or a repeated parameter stay as they are and fail.
const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

/**
 * GET /webhooks/subscriptions/active?active&health&page&size&sort (+ tenant for administrators); `sort` as on
 * the main list (spec, Limits: sort on all list endpoints).
 */
export class ListActiveSubscriptionsQueryDto extends SortedPageQueryDto {
  /** Omitted means true (contract section 4). */
  @ApiPropertyOptional({
    type: Boolean,
    default: true,
    description: 'true: the active subscriptions, false: the inactive ones (the words only)',
    example: true,
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;

  @TenantFilter()
  tenant?: string;

  @HealthFilter()
  health?: SubscriptionHealthStatus;
}
