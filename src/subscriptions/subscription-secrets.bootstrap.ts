import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SubscriptionSigningSecrets } from './subscription-signing-secrets.service';

/**
 * Subscriptions made before signing existed get their signing secret at start-up (migration
 * SubscriptionSigningSecrets cannot make them: they are encrypted with SECRETS_KEY). On
 * onApplicationBootstrap: after every onModuleInit, so after the migrations (DatabaseModule), and
 * before the webhook worker's, which Nest calls later as DispatcherModule imports this module
 * (through DeliveriesModule): every delivery of this instance is signed. A secret's first read
 * fills one too (SubscriptionSigningSecrets.current).
 */
@Injectable()
export class SubscriptionSecretsBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Subscriptions');

  constructor(private readonly signingSecrets: SubscriptionSigningSecrets) {}

  async onApplicationBootstrap(): Promise<void> {
    const filled = await this.signingSecrets.fillMissing();
    if (filled > 0) this.logger.log(`generated signing secrets for ${filled} existing subscriptions`);
  }
}
