import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfigForTool } from './src/config/configuration';
import { resolveDatabase } from './src/database/database';
import { dataSourceOptions } from './src/database/data-source.options';
import { entities } from './src/entities';

// The DataSource of the TypeORM CLI (`npm run migration:run|revert|generate`): DATABASE_URL, or the
// embedded server in DATA_DIR, joined if the service is running, else started for this command.
async function cliDataSource(): Promise<DataSource> {
  const config = loadConfigForTool(process.env);
  const database = await resolveDatabase(config, (message) => process.stderr.write(`${message}\n`));
  // Started for this command only: stopped when the CLI exits (the signal is sent synchronously).
  if (database.owned) process.once('exit', () => void database.stop());
  return new DataSource(dataSourceOptions(database.url, 10, entities));
}

// The TypeORM CLI awaits an exported Promise<DataSource>.
export default cliDataSource();
