import { ApiSchema } from '@nestjs/swagger';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

/** The component names ApiClosedSchema declared. */
const closedSchemaNames = new Set<string>();

/**
 * `@ApiSchema` for a body that has no member beyond its properties: its component gets
 * `additionalProperties: false` (closeSchemas), as its JSON Schema in the event-type catalogue has
 * (contract section 11: the OpenAPI document references the same schemas).
 */
export function ApiClosedSchema(options: { name: string; description?: string }): ClassDecorator {
  closedSchemaNames.add(options.name);
  return ApiSchema(options);
}

/** Whether ApiClosedSchema declared the component `name`. */
export const isClosedSchema = (name: string): boolean => closedSchemaNames.has(name);

/** A pass over the assembled document: the components ApiClosedSchema declared admit no other member. */
export function closeSchemas(document: OpenAPIObject): void {
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (closedSchemaNames.has(name)) (schema as SchemaObject).additionalProperties = false;
  }
}
