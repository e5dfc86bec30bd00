import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';

/**
 * An ISO 8601 instant: a calendar date, or a date and time with a zone (`Z` or `±hh:mm`); a date
 * alone is midnight UTC. A time without a zone is refused: it would be read in the server's zone.
 */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2})))?$/;

/** Years 0001..9999 once the offset is applied too (PostgreSQL has no year 0). */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The instant `value` names (years 0001..9999), or undefined when it is not one (IsInstant). */
export function parseInstant(value: unknown): Date | undefined {
  const parts = typeof value === 'string' ? INSTANT.exec(value) : null;
  if (!parts) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = parts
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const daysInMonth = month === 2 && isLeap(year!) ? 29 : DAYS[month! - 1];
  const valid =
    year! >= 1 &&
    daysInMonth !== undefined &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  const date = valid ? new Date(value as string) : undefined;
  const time = date?.getTime() ?? NaN;
  return time >= EARLIEST && time <= LATEST ? date : undefined;
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

const documented = (description: string, required: boolean, example: string) =>
  (required ? ApiProperty : ApiPropertyOptional)({
    type: String,
    format: 'date-time',
    description: `${description} (ISO 8601, with \`Z\` or an offset; a date alone is midnight UTC)`,
    example,
  });

/** Examples of a window's two ends: distinct, so the documented window is not empty. */
export const EXAMPLE_START = '2026-11-21T10:00:00.000Z';
export const EXAMPLE_END = '2026-11-21T12:00:00.000Z';

/** A documented, validated instant field (query or body); converted with parseInstant. */
export const InstantField = (description: string, required = false, example = EXAMPLE_START) =>
  applyDecorators(documented(description, required, example), IsInstant());
