import { ConflictException, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/configuration';
import { UserRole } from '../common/reference/enums';
import { UsersService } from './users.service';

/** How to create the first administrator, said at start-up while there is no user at all. */
const FIRST_ADMINISTRATOR_HINT =
  'no user exists yet: to create the first administrator, set BOOTSTRAP_ADMIN_EMAIL and ' +
  'BOOTSTRAP_ADMIN_PASSWORD (tenant BOOTSTRAP_ADMIN_TENANT, default provider) and start again, or run ' +
  '`npm run cli -- users:create --email E --password P --role ROLE_PARTNER --tenant T --partner-id N ' +
  '--partner-name NAME --admin`';

/** BOOTSTRAP_ADMIN_EMAIL/PASSWORD: the first administrator, created once (contract section 1). */
@Injectable()
export class BootstrapAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapAdminService.name);

  constructor(
    private readonly users: UsersService,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.getOrThrow('auth', { infer: true }).bootstrapAdmin;
    if (!admin) {
      if (!(await this.users.anyExists())) this.logger.warn(FIRST_ADMINISTRATOR_HINT);
      return;
    }
    if (await this.users.existsByEmail(admin.email)) return;
    try {
      await this.users.create({
        email: admin.email,
        password: admin.password,
        role: UserRole.ROLE_PARTNER,
        tenant: admin.tenant,
        partnerId: 1,
        partnerName: admin.tenant,
        administrator: true,
      });
      this.logger.log(`created the bootstrap administrator ${admin.email} (tenant ${admin.tenant})`);
    } catch (error) {
      // Another instance starting at the same time created it first.
      if (!(error instanceof ConflictException)) throw error;
    }
  }
}
