import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

/** Ready only once every migration this build knows has been applied. */
@Injectable()
export class MigrationsHealthIndicator {
  private applied = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async isApplied(key: string) {
    const check = this.indicator.check(key);
    if (!this.applied) {
      const table = this.dataSource.options.migrationsTableName ?? 'migrations';
      const rows: Array<{ name: string }> = await this.dataSource
        .query(`SELECT name FROM "${table}"`)
        .catch(() => []);
      const done = new Set(rows.map((r) => r.name));
      const pending = this.dataSource.migrations.filter((m) => !done.has(m.name!)).length;
      if (pending > 0) return check.down({ pending });
      this.applied = true; // migrations are not un-applied while the service runs
    }
    return check.up();
  }
}
