import { ConstraintViolationException } from '@mikro-orm/core';

/**
 * The name of the database constraint an error reports, when it is a constraint
 * violation. Rules that must hold under concurrency (unique names, foreign keys) are
 * left to the database; this is how a service tells which rule refused the write.
 */
export function violatedConstraint(error: unknown): string | undefined {
  if (!(error instanceof ConstraintViolationException)) return undefined;
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}
