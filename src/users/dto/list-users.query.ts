import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { SortedPageQueryDto } from '../../common/paging/page-query.dto';

export const USER_SORT_FIELDS = {
  id: 'id',
  email: 'email',
  tenant: 'tenant',
  createdAt: 'created_at',
} as const;

export class ListUsersQueryDto extends SortedPageQueryDto {
  @IsOptional()
  @IsString({ message: 'tenant must be a single string' })
  @IsNotEmpty()
  @MaxLength(255)
  tenant?: string;
}
