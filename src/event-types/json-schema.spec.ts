import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiClosedSchema } from '../common/openapi/closed-schemas';
import { jsonSchemaOf, JSON_SCHEMA_DIALECT } from './json-schema';

@ApiClosedSchema({ name: 'Inner', description: 'A nested model' })
class Inner {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'A count', example: 3 }) count: number;
}

@ApiClosedSchema({ name: 'Outer' })
class Outer {
  @ApiProperty({ type: String, maxLength: 9, pattern: '^a+$', description: 'Letters' }) name: string;
  @ApiPropertyOptional({ enum: ['X', 'Y'], description: 'A choice' }) choice?: string;
  @ApiProperty({ type: Inner, description: 'Inside' }) inner: Inner;
  @ApiProperty({ type: Inner, description: 'Inside again' }) again: Inner;
  @ApiProperty({
    type: 'object',
    nullable: true,
    enum: [null],
    additionalProperties: false,
    description: 'Never',
  })
  never: null;
}

@ApiClosedSchema({ name: 'WithArray' })
class WithArray {
  @ApiProperty({ type: [String] }) names: string[];
}

@ApiClosedSchema({ name: 'WithNullableString' })
class WithNullableString {
  @ApiProperty({ type: String, nullable: true }) name: string | null;
}

@ApiSchema({ name: 'Open' })
class Open {
  @ApiProperty({ type: String }) name: string;
}

describe('jsonSchemaOf', () => {
  it('writes a self-contained 2020-12 schema of exactly the decorated members, nested models once under $defs', () => {
    expect(jsonSchemaOf(Outer)).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      title: 'Outer',
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 9, pattern: '^a+$', description: 'Letters' },
        choice: { type: 'string', enum: ['X', 'Y'], description: 'A choice' },
        inner: { $ref: '#/$defs/Inner', description: 'Inside' },
        again: { $ref: '#/$defs/Inner', description: 'Inside again' },
        never: { type: 'null', description: 'Never' },
      },
      required: ['name', 'inner', 'again', 'never'],
      additionalProperties: false,
      $defs: {
        Inner: {
          type: 'object',
          description: 'A nested model',
          properties: { count: { type: 'integer', minimum: 1, description: 'A count', examples: [3] } },
          required: ['count'],
          additionalProperties: false,
        },
      },
    });
  });

  it('refuses what it cannot write faithfully, instead of a schema that admits less or more', () => {
    // Its OpenAPI component would admit other members: not the same schema (contract section 11).
    expect(() => jsonSchemaOf(Open)).toThrow('Open.*: a schema not declared closed is not supported');
    expect(() => jsonSchemaOf(WithArray)).toThrow('WithArray.names: an array is not supported');
    expect(() => jsonSchemaOf(WithNullableString)).toThrow(
      'WithNullableString.name: nullable beside another type is not supported',
    );
  });
});
