import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isISO8601, ValidateBy } from 'class-validator';

/**
 * An ISO 8601 instant: a calendar date, or a date and time with a zone (`Z` or `±hh:mm`); a date
 * alone is midnight UTC. A time without a zone is refused: it would be read in the server's zone.
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** The instant `value` names, or undefined when it is not one (IsInstant). */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !INSTANT.test(value) || !isISO8601(value, { strict: true })) {
    return undefined;
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const IsInstant = () =>
  ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value: unknown) => parseInstant(value) !== undefined,
      defaultMessage: (args) =>
        `${args?.property} must be an ISO 8601 date-time with a zone, e.g. 2026-11-21T10:00:00Z`,
    },
  });

const documented = (description: string, required: boolean) =>
  (required ? ApiProperty : ApiPropertyOptional)({
    type: String,
    format: 'date-time',
    description: `${description} (ISO 8601, with \`Z\` or an offset; a date alone is midnight UTC)`,
    example: '2026-11-21T10:00:00.000Z',
  });

/** A documented, validated instant field (query or body); converted with parseInstant. */
export const InstantField = (description: string, required = false) =>
  applyDecorators(documented(description, required), IsInstant());
