package fjord.debezium;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Prints every message of the named topics, from the first offset to the end offset at the time
 * of the call, one JSON object per line: {"topic", "partition", "offset", "key", "value"} with the
 * key and value as the strings they are (null for a tombstone's value). No consumer group.
 *
 * <pre>
 *   Dump BOOTSTRAP TOPIC [TOPIC ...]
 * </pre>
 */
public final class Dump {
  private Dump() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: Dump BOOTSTRAP TOPIC [TOPIC ...]");
    }
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    ObjectMapper json = new ObjectMapper();
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 1; i < args.length; i++) {
        List<PartitionInfo> infos = consumer.partitionsFor(args[i], Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
          throw new IllegalArgumentException("topic " + args[i] + " does not exist");
        }
        for (PartitionInfo p : infos) {
          parts.add(new TopicPartition(p.topic(), p.partition()));
        }
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long deadline = System.currentTimeMillis() + 60_000;
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("could not read up to the end offsets " + end);
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) {
            continue;
          }
          ObjectNode o = json.createObjectNode();
          o.put("topic", r.topic());
          o.put("partition", r.partition());
          o.put("offset", r.offset());
          o.put("key", r.key());
          o.put("value", r.value());
          out.println(json.writeValueAsString(o));
        }
      }
    }
    out.flush();
  }
}
