import { join } from 'node:path';

/**
 * The script of the delivery thread: the compiled delivery-thread.js beside this file. Tests that
 * run the TypeScript sources provide one that compiles them (test/support/test-app.ts).
 */
export const DELIVERY_THREAD_SCRIPT = Symbol('DELIVERY_THREAD_SCRIPT');
export interface DeliveryThreadScript {
  filename: string;
  /** `filename` is the script's code, not a path. */
  eval?: boolean;
}
export const defaultDeliveryThreadScript: DeliveryThreadScript = {
  filename: join(__dirname, 'delivery-thread.js'),
};
