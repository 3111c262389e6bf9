import { Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';

@Injectable()
export class DatabaseReadinessCheck {
  readonly name = 'database';

  constructor(private readonly orm: MikroORM) {}

  async check(): Promise<void> {
    await this.orm.em.getConnection().execute('select 1');
  }
}
