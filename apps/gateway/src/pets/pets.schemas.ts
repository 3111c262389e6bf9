import { PET_STATUSES } from '@petstore/contracts';
import { CategorySchema } from '../categories/categories.schemas';
import { Id, input, LookupId, named, NO_NUL, NOT_BLANK, object, page, pageQuery, ref, repeatable } from '../common/schemas';

export const PetStatusSchema = named('PetStatus', { type: 'string', enum: [...PET_STATUSES], description: 'Where the pet stands: for sale, reserved by an order, or gone.' });

const name = { type: 'string', minLength: 1, maxLength: 100, pattern: NOT_BLANK, example: 'Rex', description: '1 to 100 characters, not blank.' } as const;
const status = { type: 'string', enum: [...PET_STATUSES] } as const;

const defaultedStatus = { ...status, default: 'available', description: '`available` when omitted (on PUT too: a full replace).' };

export const NewPetSchema = named('NewPet', input({ name, categoryId: Id, status: defaultedStatus }, ['name', 'categoryId']));

/** PATCH: any non-empty subset of NewPet's fields; nothing is defaulted and `null` removes nothing. */
export const PetPatchSchema = named(
  'PetPatch',
  input({ name, categoryId: Id, status }, [], { minProperties: 1, description: 'Any non-empty subset of NewPet. `null` is not a value of any field.' }),
);

const petProperties = { id: { ...Id, readOnly: true }, name, categoryId: Id, status: ref(PetStatusSchema) };

export const PetSchema = named('Pet', object(petProperties, ['id', 'name', 'categoryId', 'status']));

export const PetsSchema = page('Pets', PetSchema);

export const PetInventorySchema = named(
  'PetInventory',
  object({ quantity: { type: 'integer', minimum: 0 }, status: ref(PetStatusSchema) }, ['quantity', 'status'], {
    nullable: true,
    description: 'The inventory entry, or null before it exists or when the inventory service does not answer in time.',
  }),
);

export const PetDetailsSchema = named(
  'PetDetails',
  object({ ...petProperties, category: ref(CategorySchema), inventory: ref(PetInventorySchema) }, ['id', 'name', 'categoryId', 'status', 'category', 'inventory']),
);

export const ListPetsQuery = pageQuery({
  status: repeatable(ref(PetStatusSchema), 'Repeatable: pets with any of these statuses.'),
  categoryId: { ...LookupId, description: 'Only the pets of this category.' },
  name: { type: 'string', minLength: 1, maxLength: 100, pattern: NO_NUL, description: 'Case-insensitive substring of the name.' },
});
