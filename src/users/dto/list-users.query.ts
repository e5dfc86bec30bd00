import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { SortedPageQueryDto } from '../../common/paging/page-query.dto';
import { MAX_STRING_LENGTH } from '../../common/reference/enums';
import { MaxChars, NoControlCharacters } from '../../common/validation/text-rules';

/** API sort fields → columns; the only text that reaches ORDER BY (contract section 4). */
export const USER_SORT_FIELDS = {
  id: 'id',
  email: 'email',
  tenant: 'tenant',
  createdAt: 'created_at',
} as const;

export class ListUsersQueryDto extends SortedPageQueryDto {
  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: MAX_STRING_LENGTH,
    description: 'Only the users of this tenant',
    example: 'acme',
  })
  @IsOptional()
  @IsString({ message: 'tenant must be a single string' })
  @IsNotEmpty()
  @MaxChars(MAX_STRING_LENGTH)
  @NoControlCharacters()
  tenant?: string;
}
