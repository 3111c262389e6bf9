/** The resource shapes that travel between the services (seed + API.md §3). */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const ORDER_STATUSES = ['placed', 'approved', 'rejected', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const REJECTION_REASONS = ['UNKNOWN_PET', 'PET_NOT_AVAILABLE', 'INSUFFICIENT_STOCK'] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface NewPet {
  name: string;
  categoryId: number;
  status: PetStatus;
}

export interface Pet extends NewPet {
  id: number;
}

export interface NewCategory {
  name: string;
  description?: string;
}

export interface Category extends NewCategory {
  id: number;
}

export interface NewOrder {
  petId: number;
  quantity: number;
  shipDate?: string;
}

export interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  status: OrderStatus;
  complete: boolean;
  rejectionReason?: RejectionReason;
}

export interface InventoryItem {
  petId: number;
  quantity: number;
  status: PetStatus;
}
