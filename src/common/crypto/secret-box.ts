import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/configuration';

/** A value sealed with its place as additional data (`open` needs the same place). */
const BOUND = 'v2';
/** A value sealed with no place: from before migration BindSealedSecrets, which re-sealed them all. */
const UNBOUND = 'v1';

/** A sealed value that does not open: another key, another place, tampered, or not sealed at all. */
export class UnreadableSecretError extends Error {
  constructor() {
    super('unreadable encrypted value');
  }
}

/**
 * AES-256-GCM for credentials at rest (subscription header values and signing secrets), keyed by
 * SECRETS_KEY. Stored as `v2.<iv>.<tag>.<ciphertext>` (base64url): a fresh 96-bit IV per value, and
 * the value's place (`binding`, its table, row and column) as additional data, so a value copied to
 * another row or column fails to open, as does any tampering or a different key. `open` refuses
 * `v1.` values, sealed without a place before migration BindSealedSecrets re-sealed them.
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

  seal(plain: string, binding: string): string {
    return this.sealAs(BOUND, plain, binding);
  }

  /** Throws UnreadableSecretError unless `sealed` was sealed by `seal` with this key and `binding`. */
  open(sealed: string, binding: string): string {
    return this.openAs(BOUND, sealed, binding);
  }

  /** A value as sealed before BindSealedSecrets: for that migration's way back only. */
  sealUnbound(plain: string): string {
    return this.sealAs(UNBOUND, plain);
  }

  /** A value sealed before BindSealedSecrets: for that migration only. */
  openUnbound(sealed: string): string {
    return this.openAs(UNBOUND, sealed);
  }

  private sealAs(version: string, plain: string, binding?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (binding !== undefined) cipher.setAAD(Buffer.from(binding, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [version, iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  private openAs(expected: string, sealed: string, binding?: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== expected || !iv || !tag || data === undefined) throw new UnreadableSecretError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      if (binding !== undefined) decipher.setAAD(Buffer.from(binding, 'utf8'));
      const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
      return plain.toString('utf8');
    } catch {
      throw new UnreadableSecretError();
    }
  }
}
