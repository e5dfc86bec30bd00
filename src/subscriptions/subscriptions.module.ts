import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { SubscriptionSecretsBootstrap } from './subscription-secrets.bootstrap';
import { SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  controllers: [SubscriptionsController],
  providers: [SubscriptionsService, SecretBox, SubscriptionSecretsBootstrap],
  exports: [SubscriptionsService],
})
export class SubscriptionsModule {}
