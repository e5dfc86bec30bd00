import { CreateUsers1763700000000 } from './1763700000000-CreateUsers';

/** Every migration, in order. `npm run migration:generate` writes a file here: add its class below. */
export const migrations = [CreateUsers1763700000000];
