import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import type { ConfigService } from '@nestjs/config';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { WebhookSender } from './webhook-sender.service';

/**
 * WebhookSender with stand-in delivery threads: each answers every send with HTTP 200 and its
 * thread id as the response body, and fails to start (throws) as `flag` says. The real thread is
 * covered by the e2e specs.
 */
function senderWith(flag: string, deliveryThreads = 1): WebhookSender {
  const script = `
    const { parentPort, threadId } = require('node:worker_threads');
    const fs = require('node:fs');
    // The flag's text: empty, every thread fails to start; '0' or '1', those whose id has that parity.
    const flag = fs.existsSync(${JSON.stringify(flag)}) ? fs.readFileSync(${JSON.stringify(flag)}, 'utf8') : undefined;
    if (flag === '' || Number(flag) === threadId % 2) throw new Error('cannot start');
    parentPort.on('message', (command) => {
      if (command.type === 'send')
        parentPort.postMessage({
          type: 'results',
          results: command.jobs.map(({ id }) => ({
            id, status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, sentAt: 0,
            responseBody: String(threadId),
          })),
        });
      if (command.type === 'close') parentPort.close();
    });
    parentPort.postMessage({ type: 'ready' });`;
  const settings: Partial<AppConfig> = {
    webhook: { timeoutMs: 1000, allowPrivateNetworks: false, deliveryThreads } as AppConfig['webhook'],
    app: { version: 'test' } as AppConfig['app'],
  };
  const config = {
    getOrThrow: (key: keyof AppConfig) => settings[key],
  } as unknown as ConfigService<AppConfig, true>;
  return new WebhookSender(config, SecretBox.withKey(randomBytes(32)), {}, { filename: script, eval: true });
}

const handlesOf = (sender: WebhookSender) =>
  (sender as unknown as { threads: Array<{ thread: Worker | undefined; ready: boolean }> }).threads;
const threadsOf = (sender: WebhookSender) => handlesOf(sender).map((t) => t.thread);
const threadOf = (sender: WebhookSender) => threadsOf(sender)[0];
const readyOf = (sender: WebhookSender) => handlesOf(sender)[0].ready;
const job = {
  eventId: '1',
  subscriptionId: 1,
  url: 'https://receiver.example.com/hook',
  payload: '{}',
  headerName: null,
  headerValueEncrypted: null,
  signingSecretEncrypted: null,
  previousSigningSecretEncrypted: null,
};

describe('WebhookSender: starting and restarting the delivery thread', () => {
  let dir: string;
  let flag: string;
  let sender: WebhookSender | undefined;

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pis-sender-'));
    flag = join(dir, 'fail-to-start');
  });
  afterEach(async () => {
    await sender?.close();
    sender = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start the application when the thread cannot start, and leaves no thread behind', async () => {
    writeFileSync(flag, '');
    sender = senderWith(flag);
    await expect(sender.onModuleInit()).rejects.toThrow('the delivery thread did not start (exit code 1)');
    expect(threadOf(sender)).toBeUndefined();
  });

  it('after the thread dies, tries again every second until a new one starts; sends made meanwhile wait and then go to it', async () => {
    sender = senderWith(flag);
    await sender.onModuleInit();
    await expect(sender.send(job)).resolves.toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });

    writeFileSync(flag, ''); // restarts fail from now on
    const first = threadOf(sender)!;
    await first.terminate();
    expect(threadOf(sender)).toBeUndefined();
    let settled = false;
    const waiting = sender.send(job).then((result) => ((settled = true), result));

    await new Promise((resolve) => setTimeout(resolve, 2500)); // two failed restarts
    expect(settled).toBe(false);
    expect(readyOf(sender)).toBe(false); // a third restart may be under way (and about to fail)

    rmSync(flag);
    expect(existsSync(flag)).toBe(false);
    await expect(waiting).resolves.toMatchObject({ status: 'SUCCESS', httpStatusCode: 200 });
    expect(threadOf(sender)).toBeDefined();
    expect(threadOf(sender)).not.toBe(first);

    await sender.close();
    expect(threadOf(sender)).toBeUndefined();
  });

  it('closing while no thread runs settles the sends still waiting for one as interrupted', async () => {
    sender = senderWith(flag);
    await sender.onModuleInit();
    writeFileSync(flag, '');
    await threadOf(sender)!.terminate();
    const waiting = sender.send(job);
    await sender.close();
    await expect(waiting).resolves.toEqual({ interrupted: true });
  });

  it('with WEBHOOK_DELIVERY_THREADS=2, spreads a burst over both threads; while one restarts the other takes every send', async () => {
    sender = senderWith(flag, 2);
    await sender.onModuleInit();
    const [one, two] = threadsOf(sender);
    expect(one!.threadId).not.toBe(two!.threadId);
    const answeredBy = async () =>
      (await Promise.all(Array.from({ length: 20 }, () => sender!.send(job)))).map((r) =>
        'responseBody' in r ? Number(r.responseBody) : undefined,
      );
    const burst = await answeredBy();
    expect(burst.filter((id) => id === one!.threadId)).toHaveLength(10);
    expect(burst.filter((id) => id === two!.threadId)).toHaveLength(10);

    writeFileSync(flag, ''); // the restart fails until the flag goes
    await one!.terminate();
    expect(new Set(await answeredBy())).toEqual(new Set([two!.threadId]));
    rmSync(flag);
  });

  it('does not start the application when one of its threads cannot start, and leaves none behind', async () => {
    writeFileSync(flag, '1'); // of three threads (consecutive ids), one or two start, the others fail
    sender = senderWith(flag, 3);
    await expect(sender.onModuleInit()).rejects.toThrow('the delivery thread did not start (exit code 1)');
    expect(threadsOf(sender)).toEqual([undefined, undefined, undefined]);
  });
});
