import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { AdminOnly } from '../auth/decorators/roles.decorator';
import { toPage, Page } from '../common/paging/page';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { CreateUserDto } from './dto/create-user.dto';
import { ListUsersQueryDto } from './dto/list-users.query';
import { UpdateUserDto } from './dto/update-user.dto';
import { toUserResponse, UserResponse } from './dto/user.response';
import { UsersService } from './users.service';

@AdminOnly()
@Controller('admin/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: CreateUserDto): Promise<UserResponse> {
    return toUserResponse(await this.users.create(body));
  }

  @Get()
  async list(@Query() query: ListUsersQueryDto): Promise<Page<UserResponse>> {
    const [users, total] = await this.users.list(query);
    return toPage(users.map(toUserResponse), total, query.page, query.size, '/admin/users', {
      sort: query.sort,
      tenant: query.tenant,
    });
  }

  @Get(':id')
  async get(@Param('id', IdParamPipe) id: number): Promise<UserResponse> {
    return toUserResponse(await this.users.getById(id));
  }

  @Patch(':id')
  async update(@Param('id', IdParamPipe) id: number, @Body() body: UpdateUserDto): Promise<UserResponse> {
    return toUserResponse(await this.users.update(id, body));
  }
}
