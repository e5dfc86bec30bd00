import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DataSource } from 'typeorm';
import { ConfigError } from './config/environment';
import { loadConfigForTool } from './config/configuration';
import { resolveDatabase } from './database/database';
import { dataSourceOptions } from './database/data-source.options';
import { runMigrations } from './database/migrate';
import { Postgres } from './database/postgres';
import { entities } from './entities';
import { CreateUserDto } from './users/dto/create-user.dto';
import { User } from './users/user.entity';
import { UsersService } from './users/users.service';
import { ValidationFailedException } from './common/errors/validation-failed.exception';

const USAGE =
  'usage: npm run cli -- users:create --email E --password P --role ROLE_PARTNER|ROLE_CLIENT|ROLE_BRANCH ' +
  '--tenant T --partner-id N --partner-name NAME [--user-name NAME] [--admin] [--hub]';

class UsageError extends Error {}

async function usersCreate(argv: string[]): Promise<string> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      tenant: { type: 'string' },
      'partner-id': { type: 'string' },
      'partner-name': { type: 'string' },
      'user-name': { type: 'string' },
      admin: { type: 'boolean' },
      hub: { type: 'boolean' },
    },
  });
  const partnerId = values['partner-id'];
  const dto = plainToInstance(CreateUserDto, {
    email: values.email,
    password: values.password,
    role: values.role,
    tenant: values.tenant,
    partnerId: partnerId !== undefined && /^\d+$/.test(partnerId) ? Number(partnerId) : partnerId,
    partnerName: values['partner-name'],
    userName: values['user-name'],
    administrator: values.admin ?? false,
    hub: values.hub ?? false,
  });
  const errors = await validate(dto, { forbidUnknownValues: true });
  if (errors.length > 0) {
    const first = ValidationFailedException.fromValidationErrors(errors).fieldErrors[0];
    throw new UsageError(
      `invalid --${first.field.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}: ${first.message}`,
    );
  }

  const config = loadConfigForTool(process.env);
  const database = await resolveDatabase(config, () => undefined);
  const dataSource = new DataSource(dataSourceOptions(database.url, 2, entities));
  try {
    await dataSource.initialize();
    await runMigrations(dataSource);
    const events = { emit: () => true } as never; // no listeners outside the service
    const user = await new UsersService(
      dataSource.getRepository(User),
      events,
      new Postgres(dataSource),
    ).create(dto);
    return `created user ${user.id} <${user.email}> role ${user.role} tenant ${user.tenant}${user.isAdministrator ? ' (administrator)' : ''}`;
  } finally {
    await dataSource.destroy().catch(() => undefined);
    await database.stop();
  }
}

/** Why it failed, in one line: the contract wants exactly one clear line on stderr. */
function describe(error: unknown): string {
  if (error instanceof UsageError || error instanceof ConfigError) return error.message;
  const e = error as { status?: number; code?: string; message?: string; name?: string };
  if (e.status === 409) return 'a user with this e-mail already exists';
  if (e.code?.startsWith('ERR_PARSE_ARGS')) return `${e.message}; ${USAGE}`;
  // e.g. an AggregateError (every address refused) has an empty message but a code.
  return `failed: ${e.message || e.code || e.name || String(error)}`;
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command !== 'users:create') throw new UsageError(USAGE);
    process.stdout.write(`${await usersCreate(rest)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${describe(error).replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

void main().then((code) => (process.exitCode = code));
