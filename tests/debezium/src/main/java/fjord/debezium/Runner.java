package fjord.debezium;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Debezium's embedded engine (the PostgreSQL connector, JSON converter) feeding a Kafka producer,
 * for Fjord's CDC tests (tests/debezium/runner.py starts it).
 *
 * <p>Each batch the engine hands over is sent, the producer is flushed, and only then are the
 * batch's records marked processed; with offset.flush.interval.ms=0 the engine commits the offsets
 * after every batch. So the offsets file never runs ahead of Kafka: a runner killed at any moment
 * sends some events again on restart but loses none.
 *
 * <p>stdout carries one line per flushed batch: {@code sent TOTAL TOPIC=COUNT ...} with the running
 * counts per topic (tombstones included); the engine's own log goes to stderr.
 *
 * <pre>
 *   Runner --pg-port P --slot S --publication PUB --topic-prefix X --offsets FILE --bootstrap B
 *          [--pg-host 127.0.0.1] [--pg-user postgres] [--pg-db postgres] [--schemas true|false]
 *          [--topic ONE_TOPIC] [--partitions 1] [--tables schema.t1,schema.t2]
 *          [--set debezium.property=value ...]
 * </pre>
 */
public final class Runner {
  private Runner() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new HashMap<>();
    List<String> sets = new ArrayList<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("argument " + (i + 1) + ": expected --name value, got '"
            + args[i] + "'");
      }
      if (args[i].equals("--set")) {
        sets.add(args[i + 1]);
      } else {
        opt.put(args[i].substring(2), args[i + 1]);
      }
    }
    for (String required :
        new String[] {"pg-port", "slot", "publication", "topic-prefix", "offsets", "bootstrap"}) {
      if (!opt.containsKey(required)) {
        throw new IllegalArgumentException("missing --" + required);
      }
    }

    Properties props = new Properties();
    props.setProperty("name", "fjord-cdc-" + opt.get("slot"));
    props.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    props.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    props.setProperty("offset.storage.file.filename", opt.get("offsets"));
    // Commit the offsets after every batch (they are only marked once Kafka has the batch).
    props.setProperty("offset.flush.interval.ms", "0");
    props.setProperty("database.hostname", opt.getOrDefault("pg-host", "127.0.0.1"));
    props.setProperty("database.port", opt.get("pg-port"));
    props.setProperty("database.user", opt.getOrDefault("pg-user", "postgres"));
    props.setProperty("database.password", opt.getOrDefault("pg-password", ""));
    props.setProperty("database.dbname", opt.getOrDefault("pg-db", "postgres"));
    props.setProperty("topic.prefix", opt.get("topic-prefix"));
    props.setProperty("plugin.name", "pgoutput");
    props.setProperty("slot.name", opt.get("slot"));
    props.setProperty("publication.name", opt.get("publication"));
    props.setProperty("snapshot.mode", "initial");
    // Tests want events within a fraction of a second, not after the default half second.
    props.setProperty("poll.interval.ms", "50");
    props.setProperty("converter.schemas.enable", opt.getOrDefault("schemas", "true"));
    if (opt.containsKey("tables")) {
      props.setProperty("table.include.list", opt.get("tables"));
      props.setProperty("publication.autocreate.mode", "filtered");
    }
    for (String s : sets) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--set " + s + ": expected property=value");
      }
      props.setProperty(s.substring(0, eq), s.substring(eq + 1));
    }

    String bootstrap = opt.get("bootstrap");
    String oneTopic = opt.get("topic");
    int partitions = Integer.parseInt(opt.getOrDefault("partitions", "1"));

    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);

    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);

    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        Admin admin = Admin.create(a)) {
      Set<String> known = new HashSet<>();
      Map<String, Long> counts = new TreeMap<>();
      long[] total = {0};

      DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>> consumer = (records, committer) -> {
        AtomicReference<Exception> sendError = new AtomicReference<>();
        for (ChangeEvent<String, String> r : records) {
          String topic = oneTopic != null ? oneTopic : r.destination();
          if (known.add(topic)) {
            createTopic(admin, topic, partitions);
          }
          producer.send(new ProducerRecord<>(topic, r.key(), r.value()), (md, e) -> {
            if (e != null) {
              sendError.compareAndSet(null, e);
            }
          });
          counts.merge(topic, 1L, Long::sum);
        }
        producer.flush();
        if (sendError.get() != null) {
          // Not marked processed: the engine stops and a restart sends the batch again.
          throw new RuntimeException("producing to Kafka failed", sendError.get());
        }
        for (ChangeEvent<String, String> r : records) {
          committer.markProcessed(r);
        }
        committer.markBatchFinished();
        total[0] += records.size();
        StringBuilder line = new StringBuilder("sent ").append(total[0]);
        counts.forEach((t, n) -> line.append(' ').append(t).append('=').append(n));
        out.println(line);
      };

      DebeziumEngine<ChangeEvent<String, String>> engine =
          DebeziumEngine.create(Json.class)
              .using(props)
              .notifying(consumer)
              .using((success, message, error) -> {
                if (!success) {
                  failure.compareAndSet(
                      null, error != null ? error : new RuntimeException(message));
                }
                done.countDown();
              })
              .build();

      Thread engineThread = new Thread(engine, "debezium-engine");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          engine.close();
          done.await();
        } catch (Exception e) {
          e.printStackTrace();
        }
      }));
      engineThread.start();
      done.await();
    }
    if (failure.get() != null) {
      System.err.println("runner: the Debezium engine failed");
      failure.get().printStackTrace();
      System.exit(1);
    }
  }

  /** The broker does not create topics on its own (auto.create.topics.enable=false in tests). */
  private static void createTopic(Admin admin, String topic, int partitions) {
    try {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new RuntimeException("creating topic " + topic + " failed", e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeException("interrupted creating topic " + topic, e);
    }
  }
}
