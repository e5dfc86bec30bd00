import { ApiIdParam } from '../common/openapi/decorators';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { subscriptionNotFound } from './subscription-visibility';

// What the routes of /webhooks/subscriptions/:id share (the subscription, its signing secret, its
// deliveries and the partner tools): the pipe of `:id` and what the document says of it.

/** The subscription's own routes: the 404 of an id past `integer` names it. */
export const SubscriptionIdPipe = new IdParamPipe(subscriptionNotFound);
/** Routes under a subscription (its deliveries, the partner tools): their 404 does not name it. */
export const ParentSubscriptionIdPipe = new IdParamPipe(() => subscriptionNotFound());

// Documentation only (OpenAPI).
export const ApiSubscriptionId = () => ApiIdParam('id', 'Subscription id', 1);
export const FORBIDDEN: [number, string] = [
  403,
  'Not ROLE_PARTNER nor an administrator, or the account is disabled',
];
export const NOT_FOUND: [number, string] = [404, 'No such subscription, or it belongs to another tenant'];
export const BAD_ID: [number, string] = [400, 'id is not a positive integer'];
