import { Controller, Module, type INestApplication } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Test, type TestingModule } from '@nestjs/testing';
import { CatalogPatterns, type ById, type Pet } from '@petstore/contracts';
import { bootstrapService, DomainError } from '@petstore/service-kit';
import { freePort, testTransport, uniqueNamespace } from '@petstore/testing';
import { CatalogClient, CatalogClientModule, type CatalogClientConfig } from '.';

const rex: Pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const SILENT_PET_ID = 8;

/** Just enough of the catalog's TCP surface: one pet, a refusal for the rest, and one lookup that never answers. */
@Controller()
class PetLookupController {
  @MessagePattern(CatalogPatterns.getPet)
  get(payload: ById): Pet | Promise<never> {
    if (payload.id === String(rex.id)) return rex;
    if (payload.id === String(SILENT_PET_ID)) return new Promise<never>(() => undefined);
    throw new DomainError(404, 'PET_NOT_FOUND', `Pet ${payload.id} does not exist`);
  }
}

@Module({ controllers: [PetLookupController] })
class PetLookupModule {}

async function clientFor(config: CatalogClientConfig): Promise<{ client: CatalogClient; close(): Promise<void> }> {
  const module: TestingModule = await Test.createTestingModule({ imports: [CatalogClientModule.forRoot(config)] }).compile();
  await module.init();
  return { client: module.get(CatalogClient), close: () => module.close() };
}

/** The transport the run asks for (RPC_TRANSPORT), on subjects of this suite's own: the catalog serves as itself, orders asks. */
const namespace = uniqueNamespace();
const transport = testTransport('orders', namespace);
const catalogTransport = testTransport('catalog', namespace);

describe('CatalogClient', () => {
  let catalog: INestApplication;
  let lookups: { client: CatalogClient; close(): Promise<void> };

  beforeAll(async () => {
    const [httpPort, rpcPort] = [await freePort(), await freePort()];
    catalog = await bootstrapService(PetLookupModule, {
      nodeEnv: 'test',
      logLevel: 'error',
      httpPort,
      host: '127.0.0.1',
      rpcPort,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/unused_test',
      databasePoolMax: 10,
      kafkaBrokers: [],
      kafkaNamespace: '',
      ...catalogTransport,
      shutdownDelayMs: 0,
      drainTimeoutMs: 0,
    }, 'catalog');
    // A budget a busy machine's lookup stays well inside: only the silent pet meets it.
    lookups = await clientFor({ ...transport, catalogRpc: { host: '127.0.0.1', port: rpcPort }, catalogLookupTimeoutMs: 1500 });
  });

  afterAll(async () => {
    await lookups?.close();
    await catalog?.close();
  });

  it('answers with the pet as the catalog has it', async () => {
    await expect(lookups.client.findPet(rex.id, 'r-1')).resolves.toEqual(rex);
  });

  it('answers undefined for a pet the catalog does not have', async () => {
    await expect(lookups.client.findPet(9, 'r-2')).resolves.toBeUndefined();
  });

  it('refuses with 503 when the catalog does not answer in time', async () => {
    const started = Date.now();
    await expect(lookups.client.findPet(SILENT_PET_ID, 'r-3')).rejects.toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses with 503 when nothing listens at CATALOG_RPC', async () => {
    const nobody = { ...transport, natsSubjectPrefix: uniqueNamespace() };
    const down = await clientFor({ ...nobody, catalogRpc: { host: '127.0.0.1', port: await freePort() }, catalogLookupTimeoutMs: 300 });
    try {
      await expect(down.client.findPet(rex.id, 'r-4')).rejects.toBeInstanceOf(DomainError);
      await expect(down.client.findPet(rex.id, 'r-5')).rejects.toMatchObject({ status: 503 });
    } finally {
      await down.close();
    }
  });
});
