import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { Receipt } from './receiver';

/**
 * What a receiver does with `standardwebhooks`: the parsed body when one of the delivery's
 * signatures is the secret's (and its timestamp is recent); throws otherwise.
 */
export const verifyReceipt = (
  secret: string,
  receipt: Receipt,
  headers: IncomingHttpHeaders = receipt.headers,
) => new Webhook(secret).verify(receipt.raw, headers as Record<string, string>);

/** The `v1,…` signatures of a delivery's `webhook-signature` header, in the order sent. */
export const signaturesOf = (headers: IncomingHttpHeaders): string[] =>
  String(headers['webhook-signature']).split(' ');
