import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Query strings arrive as strings: only a plain decimal becomes a number; anything else (an array
 * from a repeated parameter, "1.5", "1e3", "") stays as it is and fails the integer check with a 400.
 */
export const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;

/**
 * Any run of ASCII digits is an integer ≥ 0, however long, and a page past the end is an empty page
 * (contract section 4): read as a bigint, so no page number is rounded or refused. Anything else
 * stays as it is and fails IsPageNumber.
 */
const toPageNumber = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? BigInt(value) : value;

const IsPageNumber = () =>
  ValidateBy({
    name: 'isPageNumber',
    validator: {
      validate: (value: unknown) => typeof value === 'bigint',
      defaultMessage: () => 'page must be an integer ≥ 0',
    },
  });

/** `page` and `size` (contract section 4): page ≥ 0, size 1..100. */
export class PageQueryDto {
  @IsOptional()
  @Transform(toPageNumber)
  @IsPageNumber()
  page: bigint = 0n;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Min(1, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `size must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  size: number = DEFAULT_PAGE_SIZE;
}

/** `page`, `size` and a repeatable `sort` (`field` or `field,asc|desc`). */
export class SortedPageQueryDto extends PageQueryDto {
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? [value] : value))
  @IsString({ each: true, message: 'sort must be field or field,asc|desc' })
  @MaxLength(64, { each: true, message: 'sort must be field or field,asc|desc' })
  sort?: string[];
}
