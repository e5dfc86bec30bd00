import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { Conditions } from '../common/paging/conditions';
import type { NamedStatements } from '../common/paging/named-statements';
import { readPage } from '../common/paging/read-page';
import { parseSort, totalOrder } from '../common/paging/sort';
import { Postgres } from '../database/postgres';
import { User } from './user.entity';
import { CreateUserDto } from './dto/create-user.dto';
import { FIXED_USER_FIELDS, UpdateUserDto } from './dto/update-user.dto';
import { ListUsersQueryDto, USER_SORT_FIELDS } from './dto/list-users.query';
import { hashPassword } from './password-hasher';

/** The 404 message for a user id that does not exist (also IdParamPipe's, for ids past `integer`). */
export const userNotFound = (id: number | string) => `User ${id} not found`;

/** Emitted after a user changes, so per-instance caches of the user check drop it at once. */
export const USER_CHANGED = 'user.changed';

/** Every column but password_hash, named as the entity names them. */
const LIST_COLUMNS = `id, email, role, is_administrator AS "isAdministrator", hub, tenant,
  partner_id AS "partnerId", partner_name AS "partnerName", user_name AS "userName", enabled,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const isUniqueViolation = (error: unknown) =>
  error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23505';

@Injectable()
export class UsersService {
  private readonly statements: NamedStatements;

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly events: EventEmitter2,
    postgres: Postgres,
  ) {
    this.statements = postgres.namedStatements('users');
  }

  async create(dto: CreateUserDto): Promise<User> {
    const user = this.users.create({
      email: dto.email,
      passwordHash: await hashPassword(dto.password),
      role: dto.role,
      isAdministrator: dto.administrator ?? false,
      hub: dto.hub ?? false,
      tenant: dto.tenant,
      partnerId: dto.partnerId,
      partnerName: dto.partnerName,
      userName: dto.userName ?? dto.email,
      enabled: true,
    });
    try {
      return await this.users.save(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException('A user with this e-mail already exists');
      throw error;
    }
  }

  async findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  async getById(id: number): Promise<User> {
    const user = await this.findById(id);
    if (!user) throw new NotFoundException(userNotFound(id));
    return user;
  }

  /** For login only: the one read that selects the password hash. */
  async findByEmailWithHash(email: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne();
  }

  async anyExists(): Promise<boolean> {
    return this.users.createQueryBuilder('u').getExists();
  }

  async existsByEmail(email: string): Promise<boolean> {
    return this.users.createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getExists();
  }

  /** A page of users, every tenant or one; `sort` over USER_SORT_FIELDS (default id asc), ties by id. */
  async list(query: ListUsersQueryDto): Promise<[User[], number]> {
    const where = new Conditions();
    if (query.tenant !== undefined) where.add((p) => `tenant = ${p}`, query.tenant);
    const orderBy = totalOrder(parseSort(query.sort, USER_SORT_FIELDS, []), ['id']);
    const select = { columns: LIST_COLUMNS, from: 'users', where, orderBy };
    return readPage<User>(this.statements, select, query.page, query.size);
  }

  async update(id: number, dto: UpdateUserDto): Promise<User> {
    const user = await this.getById(id);
    // Sent back unchanged from a GET, these are ignored; changed, they are refused before any write.
    const changed = FIXED_USER_FIELDS.filter(
      (field) => dto[field] !== undefined && dto[field] !== user[field],
    );
    if (changed.length > 0) {
      throw new ValidationFailedException(
        changed.map((field) => ({
          field,
          message:
            field === 'isAdministrator'
              ? 'isAdministrator cannot be changed: set administrator instead'
              : `${field} cannot be changed`,
        })),
      );
    }
    const before = { ...user };
    if (dto.enabled !== undefined) user.enabled = dto.enabled;
    if (dto.role !== undefined) user.role = dto.role;
    if (dto.partnerName !== undefined) user.partnerName = dto.partnerName;
    if (dto.userName !== undefined) user.userName = dto.userName;
    if (dto.hub !== undefined) user.hub = dto.hub;
    if (dto.administrator !== undefined) user.isAdministrator = dto.administrator;
    if (dto.password !== undefined) user.passwordHash = await hashPassword(dto.password);
    // Contract section 8 (Revocation): these changes refuse every token issued before them.
    const revokesTokens =
      dto.password !== undefined ||
      user.enabled !== before.enabled ||
      user.role !== before.role ||
      user.isAdministrator !== before.isAdministrator;
    if (revokesTokens) user.tokenVersion = before.tokenVersion + 1;
    await this.users.save(user);
    this.events.emit(USER_CHANGED, id);
    return this.getById(id);
  }
}
