import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import type { AppConfig } from './configuration';

/** Typed access: `config.getOrThrow('webhook', { infer: true })`. */
export type AppConfigService = ConfigService<AppConfig, true>;

/**
 * The configuration is loaded and validated once, before Nest starts (main.ts, test helpers), and
 * handed in here, so a bad variable stops the process before anything else runs.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => config], cache: true })],
      exports: [ConfigModule],
    };
  }
}
