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
 * WebhookSender with a stand-in delivery thread: it answers every send with HTTP 200, and it
 * fails to start (throws) while `flag` exists. The real thread is covered by the e2e specs.
 */
function senderWith(flag: string): WebhookSender {
  const script = `
    const { parentPort } = require('node:worker_threads');
    if (require('node:fs').existsSync(${JSON.stringify(flag)})) throw new Error('cannot start');
    parentPort.on('message', (command) => {
      if (command.type === 'send')
        parentPort.postMessage({
          type: 'results',
          results: command.jobs.map(({ id }) => ({
            id, status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, sentAt: 0,
          })),
        });
      if (command.type === 'close') parentPort.close();
    });
    parentPort.postMessage({ type: 'ready' });`;
  const settings: Partial<AppConfig> = {
    webhook: { timeoutMs: 1000, allowPrivateNetworks: false } as AppConfig['webhook'],
    app: { version: 'test' } as AppConfig['app'],
  };
  const config = {
    getOrThrow: (key: keyof AppConfig) => settings[key],
  } as unknown as ConfigService<AppConfig, true>;
  return new WebhookSender(config, SecretBox.withKey(randomBytes(32)), {}, { filename: script, eval: true });
}

const threadOf = (sender: WebhookSender) => (sender as unknown as { thread: Worker | undefined }).thread;
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
    expect(threadOf(sender)).toBeUndefined();

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
});
