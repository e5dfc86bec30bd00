import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { SecretBox, UnreadableSecretError } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { sealedIn } from './sealed-columns';
import { generateSigningSecret } from './signing-secret';
import { SubscriptionsRepository } from './subscriptions.repository';
import { subscriptionNotFound, visibleTo } from './subscription-visibility';

/**
 * The subscriptions' signing secrets (contract section 9): read, rotated, and filled in for rows
 * from before signing. Same table and visibility as SubscriptionsService; the secrets never leave
 * through it.
 */
@Injectable()
export class SubscriptionSigningSecrets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly secretBox: SecretBox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * The subscription's signing secret, to those who may see the subscription. A subscription from
   * before signing that SubscriptionSecretsBootstrap has not reached yet gets its secret here. One
   * that does not open (copied from another row, or SECRETS_KEY changed) is a 409: a rotation
   * replaces it.
   */
  async current(user: AuthenticatedUser, id: number): Promise<string> {
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const row = await this.subscriptions.signingSecret(where);
    if (!row) return this.notFound(id);
    if (row.encrypted !== null) return this.opened(id, row.encrypted);
    const filled = await this.subscriptions.fillSigningSecret(
      id,
      this.secretBox.seal(generateSigningSecret(), sealedIn.signingSecret(id)),
    );
    return filled !== undefined ? this.opened(id, filled) : this.notFound(id);
  }

  /**
   * Makes `key` (validated already) or a generated secret the signing secret; the one it replaces
   * keeps signing for WEBHOOK_SECRET_OVERLAP_MS, sealed again for its own column; one that does
   * not open is dropped (it could sign nothing). Returns the new secret and when the previous one
   * stops signing (null when there was none).
   */
  async rotate(
    user: AuthenticatedUser,
    id: number,
    key: string = generateSigningSecret(),
  ): Promise<{ key: string; previousKeyExpiresAt: Date | null }> {
    const overlapMs = this.config.getOrThrow('webhook', { infer: true }).secretOverlapMs;
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    return this.dataSource.transaction(async (manager) => {
      // Locked: the secret sealed again as the previous one is the one replaced.
      const runner = manager.queryRunner!;
      const row = await this.subscriptions.signingSecretForUpdate(runner, where);
      if (!row) return this.notFound(id);
      const previous = row.encrypted === null ? null : this.sealedAsPrevious(id, row.encrypted);
      const sealed = this.secretBox.seal(key, sealedIn.signingSecret(id));
      const until = await this.subscriptions.rotateSigningSecret(runner, id, sealed, previous, overlapMs);
      return { key, previousKeyExpiresAt: until };
    });
  }

  /**
   * Gives a signing secret to every subscription without one (rows from before migration
   * SubscriptionSigningSecrets), `batch` rows a statement. Instances starting together may both
   * run it: a row already filled is left as it is. Returns how many this call filled.
   */
  async fillMissing(batch = 500): Promise<number> {
    let filled = 0;
    for (;;) {
      const ids = await this.subscriptions.withoutSigningSecret(batch);
      if (ids.length === 0) return filled;
      const secrets = ids.map((id) =>
        this.secretBox.seal(generateSigningSecret(), sealedIn.signingSecret(id)),
      );
      filled += await this.subscriptions.fillSigningSecrets(ids, secrets);
    }
  }

  private opened(id: number, sealed: string): string {
    try {
      return this.secretBox.open(sealed, sealedIn.signingSecret(id));
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      throw new ConflictException(
        `the signing secret of subscription ${id} is unreadable: rotate it to set a new one`,
      );
    }
  }

  /** The current secret, sealed for the previous secret's column; null when it does not open. */
  private sealedAsPrevious(id: number, sealed: string): string | null {
    try {
      const secret = this.secretBox.open(sealed, sealedIn.signingSecret(id));
      return this.secretBox.seal(secret, sealedIn.previousSigningSecret(id));
    } catch (error) {
      if (error instanceof UnreadableSecretError) return null;
      throw error;
    }
  }

  private notFound(id: number): never {
    throw new NotFoundException(subscriptionNotFound(id));
  }
}
