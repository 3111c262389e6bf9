import com.sun.tools.attach.VirtualMachine;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Prints, as one JSON object, how many requests of each type the Kafka brokers with the given
 * process ids have handled since they started, summed over the brokers and the request versions
 * (kafka.network RequestMetrics RequestsPerSec, its Count). It attaches to each broker's JVM and
 * starts its local JMX agent (once per JVM), so a broker needs no JMX port. Run as a source file:
 * `java BrokerRequestCounts.java <pid>...` (tools/bench/src/broker-requests.ts).
 */
public class BrokerRequestCounts {
  public static void main(String[] pids) throws Exception {
    ObjectName requests = new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*");
    Map<String, Long> counts = new TreeMap<>();
    for (String pid : pids) {
      VirtualMachine vm = VirtualMachine.attach(pid);
      String address = vm.startLocalManagementAgent();
      vm.detach();
      try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
        MBeanServerConnection broker = connector.getMBeanServerConnection();
        for (ObjectName name : broker.queryNames(requests, null)) {
          long count = ((Number) broker.getAttribute(name, "Count")).longValue();
          counts.merge(name.getKeyProperty("request"), count, Long::sum);
        }
      }
    }
    StringJoiner json = new StringJoiner(",", "{", "}");
    counts.forEach((request, count) -> json.add("\"" + request + "\":" + count));
    System.out.println(json);
  }
}
