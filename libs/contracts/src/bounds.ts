/**
 * The numeric bounds of the contract (API.md), each defined here once: the gateway's route
 * schemas, the RPC and event schemas and the services' own checks take them from here. The
 * databases' CHECK constraints repeat them as the last line of defence.
 */
export interface IntegerBounds {
  readonly minimum: number;
  readonly maximum: number;
}

/** Units of a pet in one order. */
export const ORDER_QUANTITY = { minimum: 1, maximum: 1000 } as const satisfies IntegerBounds;
/** A pet's free stock count. */
export const STOCK_QUANTITY = { minimum: 0, maximum: 1_000_000 } as const satisfies IntegerBounds;

/** Whether `value` is a whole number within `bounds`. */
export function withinBounds(value: unknown, { minimum, maximum }: IntegerBounds): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimum && value <= maximum;
}

/** What a validation error says of a value outside `bounds`. */
export function boundsRule({ minimum, maximum }: IntegerBounds): string {
  return `must be an integer from ${minimum} to ${maximum}`;
}
