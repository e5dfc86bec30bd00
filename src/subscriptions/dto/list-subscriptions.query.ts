import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { SortedPageQueryDto } from '../../common/paging/page-query.dto';
import { MAX_STRING_LENGTH } from '../../common/reference/enums';
import { MaxChars, NoControlCharacters } from '../../common/validation/text-rules';
import { HealthFilter, SubscriptionHealthStatus } from './subscription-health';

/** API sort fields → columns; the only text that reaches ORDER BY (contract section 4). */
export const SUBSCRIPTION_SORT_FIELDS = {
  id: 'id',
  name: 'name',
  active: 'active',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

/** Administrators only: narrows a list to one tenant (contract section 3); both lists take it. */
export const TenantFilter = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      minLength: 1,
      maxLength: MAX_STRING_LENGTH,
      description: 'Administrators only: narrows the list to one tenant (a 400 for anyone else)',
      example: 'acme',
    }),
    IsOptional(),
    IsString({ message: 'tenant must be a single string' }),
    IsNotEmpty({ message: 'tenant must not be empty' }),
    MaxChars(MAX_STRING_LENGTH),
    NoControlCharacters(),
  );

/** GET /webhooks/subscriptions?page&size&sort&index&health (+ tenant for administrators). */
export class ListSubscriptionsQueryDto extends SortedPageQueryDto {
  /** Case-insensitive substring of name; `%`, `_` and `\` match themselves. */
  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_STRING_LENGTH,
    description: 'Search filter: case-insensitive substring of name (`%`, `_` and `\\` match themselves)',
    example: 'erp',
  })
  @IsOptional()
  @IsString({ message: 'index must be a single string' })
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  index?: string;

  @TenantFilter()
  tenant?: string;

  @HealthFilter()
  health?: SubscriptionHealthStatus;
}
