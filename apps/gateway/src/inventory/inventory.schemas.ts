import { STOCK_QUANTITY } from '@petstore/contracts';
import { After, Id, input, named, object, page, pageQuery, ref, repeatable } from '../common/schemas';
import { PetStatusSchema } from '../pets/pets.schemas';

export const InventoryItemSchema = named(
  'InventoryItem',
  object({ petId: Id, quantity: { type: 'integer', minimum: 0, description: 'Stock free for sale.' }, status: ref(PetStatusSchema) }, ['petId', 'quantity', 'status']),
);

export const InventoryItemsSchema = page('InventoryItems', InventoryItemSchema);

export const InventoryUpdateSchema = named('InventoryUpdate', input({ quantity: { type: 'integer', ...STOCK_QUANTITY, description: 'The new free stock count.' } }, ['quantity']));

export const ListInventoryQuery = pageQuery(
  { status: repeatable(ref(PetStatusSchema), 'Repeatable: entries with any of these statuses.') },
  { ...After, description: 'Cursor: the last petId of the previous page (0 = from the start).' },
);
