/** WHERE conditions and their $n parameters, built together so the numbers always match. */
export class Conditions {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  add(sql: (placeholder: string) => string, value: unknown): this {
    this.params.push(value);
    this.parts.push(sql(`$${this.params.length}`));
    return this;
  }

  get where(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}
