/** The operations of the service's own OpenAPI document, read the way a generated client would. */

type Json = any;

export interface JsonSchema {
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  example?: unknown;
  default?: unknown;
}

export interface QueryParameter {
  name: string;
  schema: JsonSchema;
}

export interface Operation {
  /** e.g. `Subscriptions_create` */
  id: string;
  method: string;
  /** The path template, e.g. `/webhooks/subscriptions/{id}`. */
  path: string;
  pathParams: string[];
  query: QueryParameter[];
  /** The resolved schema of the JSON body, when the operation takes one. */
  body?: JsonSchema;
  public: boolean;
  /** The documented success status (the first 2xx). */
  success: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * A schema with its `$ref`s replaced by what they point to; an `allOf` of one (how Nest's swagger
 * writes a described enum) is merged into its node, and a `oneOf` of a schema and `null` (a
 * nullable object) becomes that schema marked nullable.
 */
export function resolveSchema(document: Json, schema: Json): JsonSchema {
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    return resolveSchema(document, document.components.schemas[name]);
  }
  const { allOf, oneOf, properties, items, ...rest } = schema;
  let node: JsonSchema = { ...rest };
  if (allOf?.length === 1) node = { ...resolveSchema(document, allOf[0]), ...node };
  if (oneOf) {
    const nonNull = oneOf.filter((alt: Json) => !(alt.enum?.length === 1 && alt.enum[0] === null));
    if (nonNull.length === 1) {
      node = { ...resolveSchema(document, nonNull[0]), ...node, nullable: nonNull.length < oneOf.length };
    }
  }
  if (properties) {
    node.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, resolveSchema(document, value)]),
    );
  }
  if (items) node.items = resolveSchema(document, items);
  return node;
}

export function operationsOf(document: Json): Operation[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method): Operation => {
      const op = item[method];
      const params: Json[] = (op.parameters ?? []).filter((p: Json) => !p.$ref);
      const content = op.requestBody?.content?.['application/json'];
      return {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: resolveSchema(document, p.schema) })),
        body: content ? resolveSchema(document, content.schema) : undefined,
        public: Array.isArray(op.security) && op.security.length === 0,
        success: Number(Object.keys(op.responses).find((status) => status.startsWith('2'))),
      };
    }),
  );
}

/** A value the schema accepts, from its examples, defaults and enumerations. */
export function exampleOf(schema: JsonSchema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'object' || schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .filter(([key]) => schema.required?.includes(key))
        .map(([key, value]) => [key, exampleOf(value)]),
    );
  }
  if (schema.type === 'array') return schema.items ? [exampleOf(schema.items)] : [];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  return 'x';
}

/** The path of each property of the body (nested objects included), with its schema. */
export function fieldsOf(schema: JsonSchema, prefix: string[] = []): Array<[string[], JsonSchema]> {
  return Object.entries(schema.properties ?? {}).flatMap(([key, value]): Array<[string[], JsonSchema]> => [
    [[...prefix, key], value],
    ...fieldsOf(value, [...prefix, key]),
  ]);
}
