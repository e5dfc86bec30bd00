export { ROOT_FALLBACK_DIR, removeOrphanClusters } from './root-fallback';
export { socketDirFor } from './cluster';
export { startEmbeddedPostgres, type EmbeddedOptions, type RunningDatabase } from './start';
