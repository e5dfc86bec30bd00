import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { SubscriptionSecretsBootstrap } from './subscription-secrets.bootstrap';
import { SubscriptionSigningSecretsController } from './subscription-signing-secrets.controller';
import { SubscriptionSigningSecrets } from './subscription-signing-secrets.service';
import { SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  controllers: [SubscriptionsController, SubscriptionSigningSecretsController],
  providers: [
    SubscriptionsRepository,
    SubscriptionsService,
    SubscriptionSigningSecrets,
    SecretBox,
    SubscriptionSecretsBootstrap,
  ],
  exports: [SubscriptionsService],
})
export class SubscriptionsModule {}
