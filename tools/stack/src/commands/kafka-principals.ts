import { kafkaScriptEnv } from '../kafka';

/** Prints the principals a broker gives SCRAM credentials to, for scripts/kafka.sh run by hand. */
export function brokerPrincipals(): number {
  console.log(kafkaScriptEnv().KAFKA_PRINCIPALS);
  return 0;
}
