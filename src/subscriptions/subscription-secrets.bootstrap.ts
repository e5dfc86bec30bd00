import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Subscriptions made before signing existed get their signing secret at start-up (migration
 * SubscriptionSigningSecrets cannot make them: they are encrypted with SECRETS_KEY). onModuleInit,
 * so it is done before the webhook worker starts claiming (onApplicationBootstrap) and every
 * delivery of this instance is signed. A secret's first read fills one too (SubscriptionsService).
 */
@Injectable()
export class SubscriptionSecretsBootstrap implements OnModuleInit {
  private readonly logger = new Logger('Subscriptions');

  constructor(private readonly subscriptions: SubscriptionsService) {}

  async onModuleInit(): Promise<void> {
    const filled = await this.subscriptions.fillMissingSigningSecrets();
    if (filled > 0) this.logger.log(`generated signing secrets for ${filled} existing subscriptions`);
  }
}
