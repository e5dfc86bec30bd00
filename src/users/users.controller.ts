import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/auth/decorators/roles.decorator';
import { toPage, Page } from '../common/paging/page';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { ApiErrors, ApiIdParam, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import { CreateUserDto } from './dto/create-user.dto';
import { ListUsersQueryDto, USER_SORT_FIELDS } from './dto/list-users.query';
import { UpdateUserDto } from './dto/update-user.dto';
import { toUserResponse, UserResponse } from './dto/user.response';
import { userNotFound, UsersService } from './users.service';

const NOT_ADMIN: [number, string] = [403, 'Not an administrator, or the account is disabled'];
const ApiUserId = () => ApiIdParam('id', 'User id', 12);
const UserIdPipe = new IdParamPipe(userNotFound);

@ApiTags('Users (administrators)')
@AdminOnly()
@Controller('admin/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @ApiOperation({
    summary: 'Create a user',
    description: 'Administrators only. The answer never holds the password or its hash.',
  })
  @ApiBody({
    type: CreateUserDto,
    examples: {
      partner: {
        summary: 'A partner user',
        value: {
          email: 'maria@acme.com',
          password: 'correct horse battery staple',
          role: 'ROLE_PARTNER',
          tenant: 'acme',
          partnerId: 42,
          partnerName: 'Acme Ltda',
          userName: 'Maria Silva',
        },
      },
    },
  })
  @ApiCreatedResponse({ type: UserResponse, description: 'The user was created' })
  @ApiErrors(400, 401, NOT_ADMIN, [409, 'A user with this e-mail already exists'], 413, 415, 429)
  @Post()
  @HttpCode(201)
  async create(@Body() body: CreateUserDto): Promise<UserResponse> {
    return toUserResponse(await this.users.create(body));
  }

  @ApiOperation({
    summary: 'List users',
    description: 'Administrators only. Every tenant, or one with `tenant`.',
  })
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(USER_SORT_FIELDS), 'id,asc')
  @ApiPageOf(UserResponse, 'A page of users')
  @ApiErrors([400, 'Invalid page, size, sort or tenant'], 401, NOT_ADMIN, 429)
  @Get()
  async list(@Query() query: ListUsersQueryDto): Promise<Page<UserResponse>> {
    const [users, total] = await this.users.list(query);
    return toPage(users.map(toUserResponse), total, query.page, query.size, '/admin/users', {
      sort: query.sort,
      tenant: query.tenant,
    });
  }

  @ApiOperation({ summary: 'Get a user', description: 'Administrators only.' })
  @ApiUserId()
  @ApiOkResponse({ type: UserResponse, description: 'The user' })
  @ApiErrors([400, 'id is not a positive integer'], 401, NOT_ADMIN, [404, 'No user with this id'], 429)
  @Get(':id')
  async get(@Param('id', UserIdPipe) id: number): Promise<UserResponse> {
    return toUserResponse(await this.users.getById(id));
  }

  @ApiOperation({
    summary: 'Update a user',
    description: 'Administrators only. Any of the fields; those left out keep their value.',
  })
  @ApiUserId()
  @ApiBody({
    type: UpdateUserDto,
    examples: {
      disable: { summary: 'Disable the account', value: { enabled: false } },
      promote: { summary: 'Make an administrator', value: { administrator: true } },
    },
  })
  @ApiOkResponse({ type: UserResponse, description: 'The updated user' })
  @ApiErrors(400, 401, NOT_ADMIN, [404, 'No user with this id'], 413, 415, 429)
  @Patch(':id')
  async update(@Param('id', UserIdPipe) id: number, @Body() body: UpdateUserDto): Promise<UserResponse> {
    return toUserResponse(await this.users.update(id, body));
  }
}
