/**
 * A message that is not a valid event of the contract: not JSON, a broken envelope, or a
 * payload its schema rejects. Retrying cannot fix it, so consumers dead-letter it at once.
 */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';

  constructor(
    message: string,
    /** One line per schema violation, `<json pointer> <problem>`. */
    readonly details: string[] = [],
    readonly eventType?: string,
  ) {
    super(details.length > 0 ? `${message}: ${details.join('; ')}` : message);
  }
}
