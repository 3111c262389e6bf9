import { InventoryRpc, type InventoryItem, type SetStockCommand } from '@petstore/contracts';
import { DomainError } from './domain-error';
import { RpcHandler } from './rpc-handler.decorator';

class StockController {
  readonly handled: SetStockCommand[] = [];

  @RpcHandler(InventoryRpc.setStock)
  set(command: SetStockCommand): InventoryItem {
    this.handled.push(command);
    return { petId: Number(command.petId), quantity: command.quantity, status: 'available' };
  }
}

describe('@RpcHandler', () => {
  it('runs the handler for a request its definition accepts', async () => {
    const controller = new StockController();
    await expect(controller.set({ requestId: 'r', petId: '7', quantity: 3 })).resolves.toEqual({ petId: 7, quantity: 3, status: 'available' });
    expect(controller.handled).toHaveLength(1);
  });

  it("accepts the caller's trace context beside the request fields", async () => {
    const controller = new StockController();
    const traced = { requestId: 'r', petId: '7', quantity: 3, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await expect(controller.set(traced)).resolves.toEqual({ petId: 7, quantity: 3, status: 'available' });
  });

  it('refuses a request that breaks its schema with 400 VALIDATION_FAILED, before the handler runs', async () => {
    const controller = new StockController();
    let error: unknown;
    try {
      await controller.set({ requestId: 'r', petId: '7', quantity: -1 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).toRpcError()).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'The inventory.set request is not valid',
      details: [{ field: 'quantity', message: 'must be >= 0' }],
    });
    expect(controller.handled).toEqual([]);
  });
});
