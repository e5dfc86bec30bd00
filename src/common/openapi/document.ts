import { STATUS_CODES } from 'node:http';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { errorBody, ErrorBody, FieldError } from '../errors/error-body';
import { ValidationFailedException } from '../errors/validation-failed.exception';

/**
 * Passes over the assembled document that keep every example valid against its own schema, so an
 * endpoint declared with the usual decorators lints clean (`npm run lint:openapi`) without care of
 * its own.
 */

/**
 * `null` in OpenAPI 3.0: `nullable` only adds null to the `type` beside it, so this schema admits
 * null and nothing else (the form OpenAPI 3.0.3's clarification of `nullable` gives).
 */
const NULL_SCHEMA: SchemaObject = { type: 'object', nullable: true, enum: [null], description: 'null' };

/**
 * `@ApiProperty({ type: Dto, nullable: true })` comes out as `{ nullable, type: object, allOf:
 * [$ref] }`, which admits no null: the referenced schema inside `allOf` has its own type and is
 * not nullable, so a true example (`licence: null` on a failure event) is invalid. Rewritten, in
 * place and anywhere in the document, to `oneOf: [$ref, null]`, with the same description.
 */
export function nullableRefsAsOneOf(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullableRefsAsOneOf(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as SchemaObject & Record<string, unknown>;
  if (schema.nullable === true && schema.allOf?.length === 1 && '$ref' in schema.allOf[0]) {
    const [ref] = schema.allOf;
    delete schema.nullable;
    delete schema.allOf;
    delete schema.type;
    schema.oneOf = [ref, NULL_SCHEMA];
  }
  for (const value of Object.values(schema)) nullableRefsAsOneOf(value);
}

/** Path parameters in an example path: the parameter's own example, else 1. */
function examplePath(path: string, parameters: Array<ParameterObject | ReferenceObject>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const parameter = parameters.find(
      (p): p is ParameterObject => !('$ref' in p) && p.in === 'path' && p.name === name,
    );
    const example = (parameter?.schema as SchemaObject | undefined)?.example ?? parameter?.example;
    return String(example ?? 1);
  });
}

/**
 * A field a 400 of this operation names: the first required body field, absent, else its first
 * query or path parameter, invalid.
 */
function invalidField(
  operation: OperationObject,
  schemas: Record<string, SchemaObject | ReferenceObject>,
): FieldError | undefined {
  const content = (operation.requestBody as { content?: Record<string, { schema?: SchemaObject }> })?.content;
  const body = content?.['application/json']?.schema;
  const ref = body && '$ref' in body ? (body.$ref as string) : undefined;
  const resolved = ref ? (schemas[ref.split('/').pop()!] as SchemaObject | undefined) : body;
  const required = resolved?.required?.[0];
  if (required) return { field: required, message: `${required} is required` };
  const parameter = (operation.parameters ?? []).find(
    (p): p is ParameterObject => !('$ref' in p) && (p.in === 'query' || p.in === 'path'),
  );
  return parameter && { field: parameter.name, message: `${parameter.name} is invalid` };
}

/** What the service answers with `status` on `path` (contract section 4's error body). */
export function errorBodyExample(status: number, path: string, invalid?: FieldError): ErrorBody {
  const errors = status === 400 && invalid ? [invalid] : undefined;
  const message = errors ? new ValidationFailedException(errors).message : (STATUS_CODES[status] ?? 'Error');
  return {
    ...errorBody(status, message, path, '3f2b8c1e-6d4a-4f0e-9a57-0c2d9e1b7a44', errors),
    timestamp: '2026-11-21T10:00:00.000Z',
  };
}

/**
 * Every error response whose body is `errorBodyRef` and that has no example gets one for its own
 * status and the operation's path: a documentation viewer otherwise builds one from the schema's
 * property examples, which says 400 Bad Request on every status.
 */
export function addErrorBodyExamples(
  document: OpenAPIObject,
  path: string,
  operation: OperationObject,
  errorBodyRef: string,
): void {
  const schemas = document.components?.schemas ?? {};
  for (const [code, response] of Object.entries(operation.responses as Record<string, ResponseObject>)) {
    const status = Number(code);
    if (!Number.isInteger(status) || status < 400) continue;
    for (const media of Object.values(response.content ?? {})) {
      const schema = media.schema as ReferenceObject | undefined;
      if (schema?.$ref !== errorBodyRef || media.example !== undefined || media.examples) continue;
      media.example = errorBodyExample(
        status,
        examplePath(path, operation.parameters ?? []),
        status === 400 ? invalidField(operation, schemas) : undefined,
      );
    }
  }
}
