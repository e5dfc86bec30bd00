const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const LOWER_U = 0x75;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface JsonShapeLimits {
  /** Arrays and objects nested in each other; the top-level value is level 1. */
  maxDepth: number;
  /** Members of any one object. */
  maxMembers: number;
  /** Values in the whole body: the top-level value, every array element and every member's value. */
  maxValues: number;
}

/**
 * What the shape of a JSON body says before it is parsed: within the limits (`surrogate-escape`
 * when a string holds a `\uD800`..`\uDFFF` escape, which may make it ill-formed Unicode), or the
 * first limit it goes past.
 */
export type JsonShape =
  'within-limits' | 'surrogate-escape' | 'too-deep' | 'too-many-members' | 'too-many-values';

const isWhitespace = (c: number) => c === SPACE || c === LINE_FEED || c === CARRIAGE_RETURN || c === TAB;
const isHexDigitOfSurrogate = (c: number) => c === 0x64 || c === 0x44; // 'd' or 'D'
/** The second hex digit of a surrogate (D800..DFFF): 8, 9, a..f or A..F. */
const isSecondDigitOfSurrogate = (c: number) =>
  c === 0x38 || c === 0x39 || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * Reads a JSON body's UTF-8 bytes once, before it is parsed: nesting depth, members per object and
 * values in all, brackets and commas inside strings not counted (no byte of a multi-byte character
 * is below 0x80). The items of an array or object are its commas, plus one unless it is empty. A body
 * that is not JSON gets an answer too; the parser refuses it afterwards.
 */
export function readJsonShape(body: Uint8Array, limits: JsonShapeLimits): JsonShape {
  // Members so far of each open object; -1 for an array (its elements count as values only).
  const members: number[] = [];
  let depth = 0;
  let values = 1;
  let inString = false;
  let surrogateEscape = false;
  let justOpened = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) {
        if (
          body[i + 1] === LOWER_U &&
          isHexDigitOfSurrogate(body[i + 2]) &&
          isSecondDigitOfSurrogate(body[i + 3])
        )
          surrogateEscape = true;
        i++;
      } else if (c === QUOTE) inString = false;
      continue;
    }
    if (justOpened && !isWhitespace(c)) {
      justOpened = false;
      // The first item of the array or object just opened, unless it closes at once.
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT) {
        if (members[depth] === 0) members[depth] = 1;
        if (++values > limits.maxValues) return 'too-many-values';
      }
    }
    if (c === QUOTE) {
      inString = true;
    } else if (c === COMMA) {
      if (depth <= 0) continue;
      if (++values > limits.maxValues) return 'too-many-values';
      if (members[depth] >= 0 && ++members[depth] > limits.maxMembers) return 'too-many-members';
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) return 'too-deep';
      members[depth] = c === OPEN_OBJECT ? 0 : -1;
      justOpened = true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return surrogateEscape ? 'surrogate-escape' : 'within-limits';
}

/** A UTF-16 code unit of a surrogate pair that is not part of one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The field (`a.b.0`) of the first string, key or value, in a parsed JSON value that is not
 * well-formed Unicode (a lone surrogate), or undefined. A key's own lone surrogates are shown as
 * U+FFFD. Only for bodies readJsonShape found a surrogate escape in: the others cannot have one.
 */
export function fieldWithLoneSurrogate(value: unknown, field = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? field : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const name = field === '' ? key : `${field}.${key}`;
    if (LONE_SURROGATE.test(key)) return name.replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD');
    const found = fieldWithLoneSurrogate(item, name);
    if (found !== undefined) return found;
  }
  return undefined;
}
