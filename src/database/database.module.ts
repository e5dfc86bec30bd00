import { DynamicModule, Logger, Module, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/configuration';
import { dataSourceOptions } from './data-source.options';
import { runMigrations } from './migrate';
import { Postgres } from './postgres';

@Module({})
export class DatabaseModule implements OnModuleInit {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * Global: every feature reaches PostgreSQL through TypeORM or Postgres (the shared pool, named
   * statements, connections of their own), never through a pool or client of its making.
   * `url` is DATABASE_URL or the embedded server's, resolved before Nest starts (main.ts);
   * `entities` the composition root's list (src/entities.ts).
   */
  static forRoot(url: string, entities: DataSourceOptions['entities']): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [Postgres],
      exports: [Postgres],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService<AppConfig, true>) =>
            dataSourceOptions(url, config.getOrThrow('database', { infer: true }).poolSize, entities),
        }),
      ],
    };
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.getOrThrow('database', { infer: true }).migrateOnStart) return;
    const applied = await runMigrations(this.dataSource);
    if (applied.length > 0) this.logger.log(`applied migrations: ${applied.join(', ')}`);
  }
}
