import { CatalogRpc } from './catalog.rpc';
import { InventoryRpc } from './inventory.rpc';
import { NATS_IDENTITIES, natsPermissions, natsServerConfig, RPC_CALLS, rpcServedBy, type NatsUser } from './nats-authorization';
import { OrdersRpc } from './orders.rpc';

const subjects = (prefix: string, service: string, definitions: object) =>
  Object.values(definitions).map((definition: { pattern: { cmd: string } }) => `${prefix}${service}.${definition.pattern.cmd}`);

describe('NATS permissions, from the RPC table', () => {
  it('each service subscribes to its own subjects only, in its own queue group, and publishes answers', () => {
    for (const [service, definitions] of [['catalog', CatalogRpc], ['orders', OrdersRpc], ['inventory', InventoryRpc]] as const) {
      const permissions = natsPermissions(service, service, 'dev.');
      const served = [...subjects('dev.', service, definitions), `dev.${service}.health.check`].map((subject) => `${subject} ${service}`);
      expect(permissions.subscribe.allow.filter((subject) => !subject.startsWith('_INBOX.'))).toEqual(served);
      expect(permissions.publish.allow.filter((subject) => !subject.startsWith('_INBOX.'))).toEqual(service === 'catalog' ? [] : ['dev.catalog.pets.get']);
    }
  });

  it('the gateway publishes the requests it forwards and nothing else, and reads its own inbox only', () => {
    const everyRequest = ['catalog', 'orders', 'inventory'].flatMap((service) => rpcServedBy(service as 'catalog').map(({ rpc }) => `e2e-1a.${service}.${rpc.pattern.cmd}`));
    expect(natsPermissions('gateway', 'gateway', 'e2e-1a.')).toEqual({
      publish: { allow: everyRequest },
      subscribe: { allow: ['_INBOX.gateway.>'] },
    });
  });

  it('orders and inventory publish only the catalog lookup; the catalog sends nothing', () => {
    expect(natsPermissions('orders', 'orders', 'dev.').publish.allow).toEqual(['dev.catalog.pets.get', '_INBOX.gateway.>']);
    expect(natsPermissions('inventory', 'inventory', 'dev.').publish.allow).toEqual(['dev.catalog.pets.get', '_INBOX.gateway.>']);
    // The catalog publishes only answers, to the inboxes of those who call it.
    expect(natsPermissions('catalog', 'catalog', 'dev.').publish.allow).toEqual(['_INBOX.gateway.>', '_INBOX.orders.>', '_INBOX.inventory.>']);
    expect(natsPermissions('catalog', 'catalog', 'dev.').subscribe.allow).not.toContain('_INBOX.catalog.>');
    expect(natsPermissions('orders', 'orders', 'dev.').subscribe.allow).toContain('_INBOX.orders.>');
  });

  it('every request someone sends is served by its service', () => {
    for (const identity of NATS_IDENTITIES) {
      for (const call of RPC_CALLS[identity]) expect(rpcServedBy(call.service)).toContainEqual(call);
    }
  });

  it('writes a server configuration with TLS and one user per identity, and refuses one that forgets an identity', () => {
    const users: NatsUser[] = NATS_IDENTITIES.map((identity) => ({ identity, user: identity, password: `${identity}-pw` }));
    const text = natsServerConfig({ listen: '127.0.0.1:4322', subjectPrefix: 'dev.', users, tls: { certFile: '/c/server.pem', keyFile: '/c/server.key' } });
    const config = JSON.parse(text.slice(text.indexOf('{')));
    expect(config.tls).toEqual({ cert_file: '/c/server.pem', key_file: '/c/server.key', timeout: 2 });
    expect(config.authorization.users.map((user: { user: string }) => user.user)).toEqual(['gateway', 'catalog', 'orders', 'inventory']);
    expect(config.authorization.users[2].permissions).toEqual(natsPermissions('orders', 'orders', 'dev.'));
    // During a rotation the next user of a caller gets answers too.
    const rotating = natsServerConfig({ listen: '127.0.0.1:4322', subjectPrefix: 'dev.', users: [...users, { identity: 'gateway', user: 'gateway-next', password: 'x' }], tls: { certFile: 'c', keyFile: 'k' } });
    const catalog = JSON.parse(rotating.slice(rotating.indexOf('{'))).authorization.users[1];
    expect(catalog.permissions.publish.allow).toEqual(['_INBOX.gateway.>', '_INBOX.orders.>', '_INBOX.inventory.>', '_INBOX.gateway-next.>']);
    expect(() => natsServerConfig({ listen: '127.0.0.1:4322', subjectPrefix: 'dev.', users: users.slice(1), tls: { certFile: 'c', keyFile: 'k' } })).toThrow('No NATS user for gateway');
  });
});
