import { After, Limit, named, page, type Schema } from '../operations/schema';
import { PetStatusSchema } from '../pets/pets.schemas';

export const InventoryItemSchema = named('InventoryItem', {
  type: 'object',
  required: ['petId', 'quantity', 'status'],
  properties: {
    petId: { type: 'integer', format: 'int64', minimum: 1 },
    quantity: { type: 'integer', minimum: 0, description: 'Stock free for sale.' },
    status: PetStatusSchema,
  },
});

export const InventoryItemsSchema = page('InventoryItems', InventoryItemSchema);

export const InventoryUpdateSchema = named('InventoryUpdate', {
  type: 'object',
  required: ['quantity'],
  properties: { quantity: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'The new free stock count.' } },
  additionalProperties: false,
});

export const ListInventoryQuery: Schema = {
  type: 'object',
  properties: {
    status: { type: 'array', items: PetStatusSchema, description: 'Repeatable: entries with any of these statuses.' },
    limit: Limit,
    after: { ...After, description: 'Cursor: the last petId of the previous page (0 = from the start).' },
  },
  additionalProperties: false,
};
