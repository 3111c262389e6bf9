import { After, repeatable, Id, named, page, pageQuery, ref } from '../common/schemas';
import { PetStatusSchema } from '../pets/pets.schemas';

export const InventoryItemSchema = named('InventoryItem', {
  type: 'object',
  required: ['petId', 'quantity', 'status'],
  properties: {
    petId: Id,
    quantity: { type: 'integer', minimum: 0, description: 'Stock free for sale.' },
    status: ref(PetStatusSchema),
  },
});

export const InventoryItemsSchema = page('InventoryItems', InventoryItemSchema);

export const InventoryUpdateSchema = named('InventoryUpdate', {
  type: 'object',
  required: ['quantity'],
  properties: { quantity: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'The new free stock count.' } },
  additionalProperties: false,
});

export const ListInventoryQuery = pageQuery(
  { status: repeatable(ref(PetStatusSchema), 'Repeatable: entries with any of these statuses.') },
  { ...After, description: 'Cursor: the last petId of the previous page (0 = from the start).' },
);
