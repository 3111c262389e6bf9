import { ORDER_QUANTITY, STOCK_QUANTITY } from '../bounds';
import { PET_STATUSES, REJECTION_REASONS } from '../model';

/** Ids the services issue stay below 2^53, so they travel as JSON numbers. */
export const idSchema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
export const orderQuantitySchema = { type: 'integer', ...ORDER_QUANTITY } as const;
export const stockQuantitySchema = { type: 'integer', ...STOCK_QUANTITY } as const;
export const petStatusSchema = { type: 'string', enum: [...PET_STATUSES] } as const;
export const rejectionReasonSchema = { type: 'string', enum: [...REJECTION_REASONS] } as const;
