import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { builtService } from './support/built-service';

jest.setTimeout(240_000);

/**
 * Fills a heap's young generation with objects that survive a while (as requests in flight do),
 * so that V8 grows the new space to its limit, and returns the new space's size in MB (both
 * semi-spaces: twice --max-semi-space-size).
 */
const NEW_SPACE_MB = `function newSpaceMb() {
  const keep = [];
  for (let i = 0; i < 3e6; i++) {
    keep.push({ i, text: 'x' + i, pair: [i, i] });
    if (keep.length > 20000) keep.splice(0, 10000);
  }
  const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space.space_size / 1048576;
}`;

/** A stand-in delivery thread: reports its young generation, then says it is ready. */
const THREAD = `${NEW_SPACE_MB}
const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ type: 'young', newSpaceMb: newSpaceMb() });
parentPort.postMessage({ type: 'ready' });`;

/** Started as npm start starts the service: the built DeliveryThread starts THREAD. */
const MAIN = (handle: string, semiSpaceMb: number | undefined) => `${NEW_SPACE_MB}
const { DeliveryThread } = require(${JSON.stringify(handle)});
const script = { filename: ${JSON.stringify(THREAD)}, eval: true };
const thread = new DeliveryThread(script, {}, console, ${JSON.stringify(semiSpaceMb)});
const started = thread.start();
thread.thread.on('message', (message) => {
  if (message.type !== 'young') return;
  started.then(async () => {
    process.stdout.write(JSON.stringify({ main: newSpaceMb(), thread: message.newSpaceMb }));
    await thread.close();
  });
});`;

/** The new spaces (MB) of the main heap and of a delivery thread started with `semiSpaceMb`. */
async function newSpaces(semiSpaceMb: number | undefined): Promise<{ main: number; thread: number }> {
  const { main } = await builtService();
  const handle = join(dirname(main), 'dispatcher/delivery-thread.handle.js');
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--max-semi-space-size=8',
    '-e',
    MAIN(handle, semiSpaceMb),
  ]);
  return JSON.parse(stdout);
}

describe("WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB: the delivery thread's young generation", () => {
  it("unset, follows the process's --max-semi-space-size (npm start: 8 MB semi-spaces)", async () => {
    await expect(newSpaces(undefined)).resolves.toEqual({ main: 16, thread: 16 });
  });

  it('gives the thread its own semi-spaces, and leaves the main heap as npm start sized it', async () => {
    await expect(newSpaces(16)).resolves.toEqual({ main: 16, thread: 32 });
    await expect(newSpaces(4)).resolves.toEqual({ main: 16, thread: 8 });
  });
});
