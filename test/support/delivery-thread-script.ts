import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryThreadScript } from '../../src/dispatcher/delivery-thread.script';

const ROOT = join(__dirname, '../..');

/**
 * The delivery thread for apps built from the TypeScript sources under jest: jest's transform does
 * not reach a worker thread, so the thread compiles the sources itself with swc, as jest does
 * (.swcrc.jest.json), then runs src/dispatcher/delivery-thread.ts. Production runs the compiled
 * dist/src/dispatcher/delivery-thread.js (defaultDeliveryThreadScript).
 */
export function tsDeliveryThreadScript(): DeliveryThreadScript {
  const swc = JSON.parse(readFileSync(join(ROOT, '.swcrc.jest.json'), 'utf8'));
  delete swc.$schema;
  const code = `
    const { readFileSync } = require('node:fs');
    const { transformSync } = require(${JSON.stringify(require.resolve('@swc/core'))});
    const options = ${JSON.stringify(swc)};
    require.extensions['.ts'] = (module, filename) =>
      module._compile(transformSync(readFileSync(filename, 'utf8'), { ...options, filename }).code, filename);
    require(${JSON.stringify(join(ROOT, 'src/dispatcher/delivery-thread.ts'))});
  `;
  return { filename: code, eval: true };
}
