import { Subscription } from '../subscriptions/subscription.entity';
import { User } from '../users/user.entity';

/** Every entity, for the app and the CLI alike. Add new ones here. */
export const entities = [User, Subscription];
