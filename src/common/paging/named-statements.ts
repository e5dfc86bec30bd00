import { createHash } from 'node:crypto';

/** Runs one statement, as the named prepared statement `name` when there is one. */
export type RunStatement = (name: string | undefined, text: string, values: unknown[]) => Promise<unknown[]>;

/** Distinct SQL texts run as named prepared statements (each connection keeps at most this many). */
export const MAX_PREPARED_STATEMENTS = 100;

/**
 * Hot reads (lists, visibility checks) as named prepared statements, parsed and planned once per
 * connection: each distinct text gets a name of its own, `<prefix>_<hash of the text>`. The texts
 * come from a finite set (filters × whitelisted sort orders); past MAX_PREPARED_STATEMENTS of them
 * (many-field sorts) a text runs unnamed, so no connection keeps an unbounded number.
 */
export class NamedStatements {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly run: RunStatement,
  ) {}

  async query<T>(text: string, values: unknown[]): Promise<T[]> {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_PREPARED_STATEMENTS) {
      name = `${this.prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return (await this.run(name, text, values)) as T[];
  }
}
