import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, writeSync } from 'node:fs';

/**
 * DATA_DIR and every file the service writes in it are its owner's alone (contract section 8,
 * Files). Modes are set explicitly, whatever the umask; an existing folder is never widened.
 */
export function makeOwnerOnlyDir(path: string): void {
  if (mkdirSync(path, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(path, 0o700);
}

/** Opens (creating if missing) a file that is 0600 before a byte is written, even one made wider earlier. */
export function openOwnerOnlyFile(path: string, flags: 'a' | 'w'): number {
  const fd = openSync(path, flags, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

export function writeOwnerOnlyFile(path: string, content: string): void {
  const fd = openOwnerOnlyFile(path, 'w');
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
}
