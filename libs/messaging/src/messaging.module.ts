import { Module, type DynamicModule } from '@nestjs/common';
import { EventDispatcher } from './event.dispatcher';
import { KafkaReadinessCheck } from './kafka-readiness.check';
import { MessagingKafka } from './messaging-kafka';
import {
  MESSAGING_OPTIONS,
  RELAY_SETTINGS,
  defaultRelaySettings,
  type MessagingOptions,
  type RelaySettings,
} from './messaging.options';
import { MessagingService } from './messaging.service';
import { OutboxRelay } from './outbox.relay';
import { OutboxWriter } from './outbox.writer';
import { TransactionHooks } from './transaction-hooks';

/**
 * The transactional outbox and the idempotent consumer of one service. Global: any module
 * can inject OutboxWriter. Needs MikroOrmModule.forRoot with `messagingMigrations` in the
 * service's ORM options.
 */
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingOptions): DynamicModule {
    const relaySettings: RelaySettings = { ...defaultRelaySettings, ...options.relay };
    return {
      module: MessagingModule,
      global: true,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        { provide: RELAY_SETTINGS, useValue: relaySettings },
        {
          provide: MessagingKafka,
          useFactory: () =>
            new MessagingKafka({
              clientId: options.producer,
              brokers: options.kafka.brokers,
              namespace: options.kafka.namespace,
              logLevel: options.kafka.logLevel,
            }),
        },
        OutboxRelay,
        TransactionHooks,
        OutboxWriter,
        EventDispatcher,
        MessagingService,
        KafkaReadinessCheck,
      ],
      exports: [OutboxWriter, TransactionHooks, MessagingService, KafkaReadinessCheck, MESSAGING_OPTIONS],
    };
  }
}
