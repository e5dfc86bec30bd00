import type { AppConfig } from '../config/configuration';
import { EmbeddedOptions, removeOrphanClusters, RunningDatabase, startEmbeddedPostgres } from './embedded';

/** DATABASE_URL when set; otherwise the embedded PostgreSQL kept in DATA_DIR (contract section 1). */
export async function resolveDatabase(
  config: AppConfig,
  log: (message: string) => void,
  supervision: Pick<EmbeddedOptions, 'warn' | 'onGiveUp'> = {},
): Promise<RunningDatabase> {
  if (config.database.url) {
    // Any start as root clears the embedded clusters whose DATA_DIR is gone, this one's included.
    if (process.getuid?.() === 0) await removeOrphanClusters(log);
    return { url: config.database.url, owned: false, stop: async () => undefined };
  }
  return startEmbeddedPostgres({ dataDir: config.app.dataDir, log, ...supervision });
}
