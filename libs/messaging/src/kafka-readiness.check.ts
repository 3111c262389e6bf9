import { Injectable } from '@nestjs/common';
import { MessagingService } from './messaging.service';

/**
 * Ready when the messaging has started and the broker answers (within 800 ms, cached for
 * a second). Has the shape of the service kit's ReadinessCheck.
 */
@Injectable()
export class KafkaReadinessCheck {
  readonly name = 'kafka';

  constructor(private readonly messaging: MessagingService) {}

  check(): Promise<void> {
    return this.messaging.checkBroker();
  }
}
