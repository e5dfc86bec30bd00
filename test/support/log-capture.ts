import { Writable } from 'node:stream';

/** Collects everything the app logs, as the raw text it would write to stdout. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
  lines(): string[] {
    return this.text.split('\n').filter((line) => line.length > 0);
  }
  /** Every line parsed as JSON: throws on the first line that is not. */
  records(): Array<Record<string, unknown>> {
    return this.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
