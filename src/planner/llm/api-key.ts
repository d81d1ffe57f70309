/**
 * A provider's API key, held so that nothing prints it by accident: String(), JSON,
 * util.inspect and template literals all give `***`. The one way to the value is
 * reveal(), called only where a provider SDK client is constructed.
 */
import { inspect } from 'node:util';

const MASK = '***';

export class ApiKey {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return MASK;
  }
  toJSON(): string {
    return MASK;
  }
  [inspect.custom](): string {
    return MASK;
  }
}
