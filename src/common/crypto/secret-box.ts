import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/configuration';

const VERSION = 'v1';

/**
 * AES-256-GCM for credentials at rest (subscription headerValue), keyed by SECRETS_KEY.
 * Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url): a fresh 96-bit IV per value; the tag makes
 * any tampering, or a different key, fail loudly instead of yielding garbage.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;

  constructor(config: ConfigService<AppConfig, true>) {
    this.key = config.getOrThrow('secrets', { infer: true }).key;
  }

  static withKey(key: Buffer): SecretBox {
    const box = Object.create(SecretBox.prototype) as SecretBox;
    (box as unknown as { key: Buffer }).key = key;
    return box;
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined)
      throw new Error('unreadable encrypted value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
