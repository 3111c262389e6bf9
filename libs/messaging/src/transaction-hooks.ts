import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventSubscriber, Transaction, TransactionEventArgs } from '@mikro-orm/core';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { transactionOf } from '@petstore/database';

type BeforeCommit = (em: EntityManager, transaction: Transaction) => Promise<void>;

interface Hooks {
  before: BeforeCommit[];
  /** Before-commit work that must see everything the other hooks wrote (the outbox insert). */
  beforeLast: BeforeCommit[];
  after: (() => void)[];
}

/**
 * Work tied to the commit of the transaction an `em` runs in: `before` runs inside it, just
 * before it commits (and rolls back with it); `after` runs once it has committed, and never
 * if it rolls back.
 */
@Injectable()
export class TransactionHooks implements OnModuleInit {
  private readonly hooks = new WeakMap<object, Hooks>();

  constructor(private readonly orm: MikroORM) {}

  onModuleInit(): void {
    const subscriber: EventSubscriber = {
      beforeTransactionCommit: (args: TransactionEventArgs) => this.runBefore(args),
      afterTransactionCommit: (args: TransactionEventArgs) => this.runAfter(args),
    };
    // Forks share or clone the global EntityManager's event manager, so every unit of work sees it.
    this.orm.em.getEventManager().registerSubscriber(subscriber);
  }

  /** `last`: after every other before-commit hook, whenever it was added. */
  before(em: EntityManager, work: BeforeCommit, { last = false } = {}): void {
    const hooks = this.of(em);
    (last ? hooks.beforeLast : hooks.before).push(work);
  }

  after(em: EntityManager, work: () => void): void {
    this.of(em).after.push(work);
  }

  private of(em: EntityManager): Hooks {
    const transaction = transactionOf(em, 'Commit hooks need');
    const root = rootTransaction(transaction);
    let hooks = this.hooks.get(root);
    if (!hooks) this.hooks.set(root, (hooks = { before: [], beforeLast: [], after: [] }));
    return hooks;
  }

  private async runBefore({ em, transaction }: TransactionEventArgs): Promise<void> {
    const hooks = transaction === undefined ? undefined : this.hooks.get(transaction as object);
    if (!hooks) return;
    // Indexed loops: a hook may add hooks (work that publishes an event adds the outbox insert).
    for (let i = 0; i < hooks.before.length; i++)
      await hooks.before[i](em as EntityManager, transaction as Transaction);
    for (let i = 0; i < hooks.beforeLast.length; i++) {
      await hooks.beforeLast[i](em as EntityManager, transaction as Transaction);
    }
  }

  private runAfter({ transaction }: TransactionEventArgs): void {
    const hooks = transaction === undefined ? undefined : this.hooks.get(transaction as object);
    if (!hooks) return;
    this.hooks.delete(transaction as object);
    for (const work of hooks.after) work();
  }
}

/**
 * A nested `em.transactional` runs in a savepoint whose context points at its parent through
 * a symbol property (`parentTransaction`, private to MikroORM's AbstractSqlConnection); commit
 * events fire only for the outermost transaction, so hooks are kept with it.
 *
 * MikroORM 6.6 has no public way from a nested context to its root: the transaction events
 * fire for the root only, `em.getTransactionContext()` gives the innermost context, and the
 * `propagation` option (REQUIRED joins the outer transaction instead of a savepoint) is chosen
 * by each caller of `em.transactional`, so it cannot make a nested call of somebody else's
 * share the root's context. Hence the lookup; should the private link change, a savepoint
 * (MikroORM names it in `savepointName`) without it fails loudly here instead of dropping hooks.
 */
function rootTransaction(transaction: object): object {
  let current = transaction as Record<symbol | string, unknown>;
  for (;;) {
    const link = Object.getOwnPropertySymbols(current).find((symbol) => symbol.description === 'parentTransaction');
    const parent = link ? current[link] : undefined;
    if (!parent || (typeof parent !== 'function' && typeof parent !== 'object')) {
      if ('savepointName' in current) {
        throw new Error('A nested transaction without its parentTransaction link: MikroORM changed its internals');
      }
      return current;
    }
    current = parent as Record<symbol | string, unknown>;
  }
}
