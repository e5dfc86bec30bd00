import { Allow } from 'class-validator';

/**
 * Base of every request body: the read-only fields a resource is returned with are accepted and
 * ignored, so a client can GET, change and send back (contract section 4). Any other unknown field
 * stays a 400 naming it (the global pipe's whitelist). The service never reads these.
 */
export abstract class ReadOnlyResourceFields {
  @Allow() id?: unknown;
  @Allow() createdAt?: unknown;
  @Allow() updatedAt?: unknown;
  @Allow() _links?: unknown;
}
