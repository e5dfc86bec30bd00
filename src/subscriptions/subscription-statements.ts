import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NamedStatements } from '../common/paging/named-statements';
import { preparedQuery } from '../database/prepared-query';

/**
 * The subscriptions table's hot statements (benchmarked): hand-written SQL as named prepared
 * statements on TypeORM's own pg pool, no SQL building, hydration or re-planning per request. One
 * instance for SubscriptionsService and SubscriptionSigningSecrets, so one MAX_PREPARED_STATEMENTS
 * budget covers the table.
 */
@Injectable()
export class SubscriptionStatements extends NamedStatements {
  constructor(dataSource: DataSource) {
    super('subscriptions', (name, text, values) => preparedQuery(dataSource, name, text, values));
  }
}
