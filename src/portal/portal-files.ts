import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';

/**
 * The built portal (`vite build portal`, part of `npm run build`): dist/portal under the project
 * root, found from this file whether it runs compiled (dist/src/portal) or from source (tests).
 */
export function defaultPortalDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'portal');
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** A built file's bytes and type; read once, kept (the build's files never change under a running service). */
export interface PortalFile {
  body: Buffer;
  type: string;
}

/**
 * The files of one build: index.html and the hashed files under assets/. Only plain names under
 * assets/ with a known extension are read, so no request reaches outside the folder.
 */
export class PortalFiles {
  private readonly cache = new Map<string, Promise<PortalFile | undefined>>();

  constructor(readonly dir: string) {}

  index(): Promise<PortalFile | undefined> {
    return this.read('index.html', 'text/html; charset=utf-8');
  }

  asset(name: string): Promise<PortalFile | undefined> {
    const type = TYPES[extname(name)];
    if (!type || !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) return Promise.resolve(undefined);
    return this.read(`assets/${name}`, type);
  }

  private read(path: string, type: string): Promise<PortalFile | undefined> {
    let file = this.cache.get(path);
    if (!file) {
      file = readFile(join(this.dir, path)).then(
        (body) => ({ body, type }),
        () => {
          // Not built (yet): look again next time rather than remembering the absence.
          this.cache.delete(path);
          return undefined;
        },
      );
      this.cache.set(path, file);
    }
    return file;
  }
}
