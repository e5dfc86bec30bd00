import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createSecretKey, KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/configuration';

/** The HS256 key as a KeyObject, made once. */
@Injectable()
export class JwtKeyProvider {
  readonly key: KeyObject;

  constructor(config: ConfigService<AppConfig, true>) {
    this.key = createSecretKey(Buffer.from(config.getOrThrow('auth', { infer: true }).jwtSecret, 'utf8'));
  }
}
