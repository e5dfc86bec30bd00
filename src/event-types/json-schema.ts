import { DECORATORS } from '@nestjs/swagger';
import type { Type } from '@nestjs/common';
import { isClosedSchema } from '../common/openapi/closed-schemas';

/** A JSON Schema (2020-12) as plain JSON. */
export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** What @ApiProperty records for a property (the subset the event bodies use). */
interface PropertyMetadata {
  type?: unknown;
  required?: boolean;
  nullable?: boolean;
  isArray?: boolean;
  enum?: unknown[];
  example?: unknown;
  [keyword: string]: unknown;
}

const PRIMITIVE_TYPES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
]);
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
/** Keywords with the same meaning in OpenAPI 3.0 and JSON Schema 2020-12: copied as they are. */
const SHARED_KEYWORDS = [
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'description',
];

function schemaName(model: Type<unknown>): string {
  const schemas = Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, model) as
    Array<{ name?: string }> | undefined;
  return schemas?.at(-1)?.name ?? model.name;
}

function schemaDescription(model: Type<unknown>): string | undefined {
  const schemas = Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, model) as
    Array<{ description?: string }> | undefined;
  return schemas?.at(-1)?.description;
}

function unsupported(model: Type<unknown>, property: string, what: string): Error {
  return new Error(`event-type schema: ${schemaName(model)}.${property}: ${what} is not supported`);
}

/** One property: `null` only, a nested model (a $ref into $defs), or a scalar with its keywords. */
function propertySchema(
  model: Type<unknown>,
  property: string,
  metadata: PropertyMetadata,
  defs: Record<string, JsonSchema>,
): JsonSchema {
  if (metadata.isArray) throw unsupported(model, property, 'an array');
  const description = metadata.description === undefined ? {} : { description: metadata.description };
  if (metadata.nullable) {
    // The one nullable form the bodies use: a member that is always null (ApiAlwaysNull).
    if (metadata.enum?.length === 1 && metadata.enum[0] === null) return { type: 'null', ...description };
    throw unsupported(model, property, 'nullable beside another type');
  }
  const { type } = metadata;
  if (typeof type === 'function' && !PRIMITIVE_TYPES.has(type)) {
    return { $ref: `#/$defs/${defineModel(type as Type<unknown>, defs)}`, ...description };
  }
  const scalar = PRIMITIVE_TYPES.get(type) ?? type;
  if (typeof scalar !== 'string' || !SCALAR_TYPES.has(scalar)) {
    throw unsupported(model, property, `type ${String(scalar)}`);
  }
  const schema: JsonSchema = { type: scalar };
  for (const keyword of SHARED_KEYWORDS) {
    if (metadata[keyword] !== undefined) schema[keyword] = metadata[keyword];
  }
  if (metadata.example !== undefined) schema.examples = [metadata.example];
  return schema;
}

/**
 * A model's object schema: exactly its decorated properties (a body has no other member), so only of
 * a model declared with ApiClosedSchema, whose OpenAPI component says the same.
 */
function objectSchema(model: Type<unknown>, defs: Record<string, JsonSchema>): JsonSchema {
  if (!isClosedSchema(schemaName(model))) throw unsupported(model, '*', 'a schema not declared closed');
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, model.prototype) ??
    []) as string[];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const key of keys) {
    const property = key.replace(/^:/, '');
    const metadata = Reflect.getMetadata(
      DECORATORS.API_MODEL_PROPERTIES,
      model.prototype,
      property,
    ) as PropertyMetadata;
    properties[property] = propertySchema(model, property, metadata, defs);
    if (metadata.required !== false) required.push(property);
  }
  const description = schemaDescription(model);
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    properties,
    required,
    additionalProperties: false,
  };
}

/** Puts a nested model in `defs` under its OpenAPI component name, once; returns that name. */
function defineModel(model: Type<unknown>, defs: Record<string, JsonSchema>): string {
  const name = schemaName(model);
  if (!(name in defs)) {
    defs[name] = {};
    defs[name] = objectSchema(model, defs);
  }
  return name;
}

/**
 * The JSON Schema (2020-12) of a model decorated for OpenAPI: built from the same @ApiSchema and
 * @ApiProperty metadata @nestjs/swagger writes its components from (it exports no function that
 * turns one class into a schema), self-contained, nested models under `$defs` by their component
 * names.
 */
export function jsonSchemaOf(model: Type<unknown>): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  const body = objectSchema(model, defs);
  return { $schema: JSON_SCHEMA_DIALECT, title: schemaName(model), ...body, $defs: defs };
}
