import { Module } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box';
import { SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  controllers: [SubscriptionsController],
  providers: [SubscriptionsService, SecretBox],
  exports: [SubscriptionsService],
})
export class SubscriptionsModule {}
