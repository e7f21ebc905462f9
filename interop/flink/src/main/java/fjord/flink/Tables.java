package fjord.flink;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The tables `write` creates and the rounds of changes it streams into them. Everything is
 * generated from a fixed seed per table, so every run writes the same rows in the same rounds.
 *
 * <p>Each round is one checkpoint of the writing job, hence (when it changes anything) one APPEND
 * snapshot, plus whatever COMPACT snapshots the table's changelog producer makes.
 */
final class Tables {
    private Tables() {}

    /** What the rows of a table look like. */
    enum Kind {
        /** deduplicate: inserts, updates as -U/+U pairs and as lone +U, deletes */
        DEDUPLICATE,
        /** aggregation (sum, max, last_non_null_value): +I rows only, each adding to its key */
        AGGREGATION,
        /** partial-update: +I rows that set some non-key columns and leave the others NULL */
        PARTIAL_UPDATE
    }

    static final class Spec {
        final String name;
        final Kind kind;
        final boolean partitioned;
        final int buckets;
        final Map<String, String> options;
        final int rounds;
        /**
         * The rounds of each `write --phase K` job (one phase, all rounds, unless split), and
         * whether that job writes with write-only = true (level-0 files only, no compaction).
         */
        int[] phaseRounds;
        boolean[] phaseWriteOnly = {false};
        /** Values of the partition column p (when partitioned). */
        String[] partitionValues = {"a", "b=c/d"};

        Spec(String name, Kind kind, boolean partitioned, int buckets, int rounds, String... options) {
            this.name = name;
            this.kind = kind;
            this.partitioned = partitioned;
            this.buckets = buckets;
            this.rounds = rounds;
            this.phaseRounds = new int[] {rounds};
            this.options = new LinkedHashMap<>();
            for (int i = 0; i < options.length; i += 2) {
                this.options.put(options[i], options[i + 1]);
            }
            this.options.put("bucket", Integer.toString(buckets));
        }

        /**
         * Splits the rounds into phases, one `write --phase K` job each: pairs of a round count
         * and "W" (write-only) or "N" (a normal writer, compacting as it writes).
         */
        Spec phases(Object... countAndMode) {
            int n = countAndMode.length / 2;
            phaseRounds = new int[n];
            phaseWriteOnly = new boolean[n];
            int sum = 0;
            for (int i = 0; i < n; i++) {
                phaseRounds[i] = (Integer) countAndMode[2 * i];
                phaseWriteOnly[i] = countAndMode[2 * i + 1].equals("W");
                sum += phaseRounds[i];
            }
            if (sum != rounds) {
                throw new IllegalArgumentException(name + ": phases of " + sum + " rounds, not " + rounds);
            }
            return this;
        }

        /** The number of rounds written once phase {@code k} is done. */
        int roundsThrough(int k) {
            int sum = 0;
            for (int i = 0; i <= k; i++) {
                sum += phaseRounds[i];
            }
            return sum;
        }

        int phaseCount() {
            return phaseRounds.length;
        }

        Spec partitions(String... values) {
            this.partitionValues = values;
            return this;
        }

        /** Column names and Flink SQL types, in table order. */
        List<String[]> columns() {
            List<String[]> c = new ArrayList<>();
            if (partitioned) {
                c.add(new String[] {"p", "STRING NOT NULL"});
            }
            c.add(new String[] {"id", "INT NOT NULL"});
            switch (kind) {
                case DEDUPLICATE:
                    c.add(new String[] {"b", "BIGINT"});
                    c.add(new String[] {"s", "STRING"});
                    c.add(new String[] {"d", "DOUBLE"});
                    c.add(new String[] {"dec", "DECIMAL(12, 3)"});
                    c.add(new String[] {"ts", "TIMESTAMP(3)"});
                    c.add(new String[] {"ts6", "TIMESTAMP(6)"});
                    c.add(new String[] {"dt", "DATE"});
                    break;
                case AGGREGATION:
                    c.add(new String[] {"b", "BIGINT"});
                    c.add(new String[] {"d", "DOUBLE"});
                    c.add(new String[] {"s", "STRING"});
                    break;
                case PARTIAL_UPDATE:
                    c.add(new String[] {"b", "BIGINT"});
                    c.add(new String[] {"s", "STRING"});
                    c.add(new String[] {"dec", "DECIMAL(12, 3)"});
                    c.add(new String[] {"ts", "TIMESTAMP(3)"});
                    break;
                default:
                    throw new IllegalStateException();
            }
            return c;
        }

        List<String> primaryKey() {
            return partitioned ? List.of("p", "id") : List.of("id");
        }

        String createTableSql(String qualifiedName) {
            StringBuilder sb = new StringBuilder("CREATE TABLE ").append(qualifiedName).append(" (");
            for (String[] col : columns()) {
                sb.append('`').append(col[0]).append("` ").append(col[1]).append(", ");
            }
            sb.append("PRIMARY KEY (").append(String.join(", ", primaryKey())).append(") NOT ENFORCED)");
            if (partitioned) {
                sb.append(" PARTITIONED BY (p)");
            }
            sb.append(" WITH (");
            boolean first = true;
            for (Map.Entry<String, String> e : options.entrySet()) {
                sb.append(first ? "" : ", ").append(quote(e.getKey())).append(" = ").append(quote(e.getValue()));
                first = false;
            }
            return sb.append(')').toString();
        }
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** The tables of `write`: one per changelog producer, and the other merge engines. */
    static List<Spec> specs() {
        return List.of(
                new Spec("pk_input", Kind.DEDUPLICATE, true, 2, 6, "changelog-producer", "input"),
                new Spec("pk_lookup", Kind.DEDUPLICATE, false, 3, 6, "changelog-producer", "lookup"),
                new Spec("pk_full_compaction", Kind.DEDUPLICATE, true, 2, 6,
                        "changelog-producer", "full-compaction", "full-compaction.delta-commits", "1"),
                new Spec("pk_full_compaction_2", Kind.DEDUPLICATE, false, 1, 7,
                        "changelog-producer", "full-compaction", "full-compaction.delta-commits", "2"),
                new Spec("pk_none", Kind.DEDUPLICATE, true, 2, 6, "changelog-producer", "none"),
                new Spec("agg_lookup", Kind.AGGREGATION, false, 2, 5,
                        "changelog-producer", "lookup", "merge-engine", "aggregation",
                        "fields.b.aggregate-function", "sum", "fields.d.aggregate-function", "max",
                        "fields.s.aggregate-function", "last_non_null_value"),
                new Spec("partial_full_compaction", Kind.PARTIAL_UPDATE, false, 1, 5,
                        "changelog-producer", "full-compaction", "full-compaction.delta-commits", "1",
                        "merge-engine", "partial-update"),
                new Spec("partial_lookup", Kind.PARTIAL_UPDATE, false, 2, 7,
                        "changelog-producer", "lookup", "merge-engine", "partial-update",
                        "fields.ts.sequence-group", "b", "fields.b.aggregate-function", "sum"),
                // Deletion vectors (issue 19 point 5): written in three phases, one Flink job
                // each, Fjord compacting after each (tests/compat/flink_tail_compat.py). The
                // middle phase writes one round write-only: one small level-0 file per bucket,
                // which Fjord's compaction moves just above the bucket's one run, marking what it
                // replaces there in deletion vectors; the last phase's writers restore them.
                // Partition values without '/': with deletion vectors, as with the lookup
                // producer (docs/status.md), the connector's job fails on them (IOException: No
                // such file or directory).
                new Spec("dv_dedup", Kind.DEDUPLICATE, true, 2, 8, "deletion-vectors.enabled", "true")
                        .partitions("a", "b").phases(5, "N", 1, "W", 2, "N"),
                new Spec("dv_lookup", Kind.DEDUPLICATE, false, 2, 8,
                        "deletion-vectors.enabled", "true", "changelog-producer", "lookup")
                        .phases(4, "W", 1, "W", 3, "N"),
                new Spec("dv_agg_lookup", Kind.AGGREGATION, false, 2, 7,
                        "deletion-vectors.enabled", "true", "changelog-producer", "lookup",
                        "merge-engine", "aggregation", "fields.b.aggregate-function", "sum",
                        "fields.d.aggregate-function", "max",
                        "fields.s.aggregate-function", "last_non_null_value")
                        .phases(4, "N", 1, "W", 2, "N"),
                // partial-update: lookup, as Flink does not stream a partial-update table
                // without a changelog producer
                new Spec("dv_partial_lookup", Kind.PARTIAL_UPDATE, false, 1, 7,
                        "deletion-vectors.enabled", "true", "changelog-producer", "lookup",
                        "merge-engine", "partial-update")
                        .phases(4, "W", 1, "W", 2, "N"));
    }

    /**
     * The rows of a table after its first {@code upTo} rounds, from a model of its merge engine:
     * deduplicate keeps each key's last row (-U and -D remove it); aggregation sums b, keeps the
     * largest d and the last non-null s (NULLs ignored, a key of NULLs only stays NULL);
     * partial-update without sequence groups keeps the last non-null value of each column.
     */
    static List<Row> expected(Spec spec, int upTo) {
        if (spec.kind == Kind.PARTIAL_UPDATE && spec.options.keySet().stream().anyMatch(k -> k.contains("sequence-group"))
                || spec.kind == Kind.AGGREGATION && !("sum".equals(spec.options.get("fields.b.aggregate-function"))
                        && "max".equals(spec.options.get("fields.d.aggregate-function"))
                        && "last_non_null_value".equals(spec.options.get("fields.s.aggregate-function")))) {
            throw new IllegalArgumentException("no model of the merge options of " + spec.name);
        }
        int keyArity = spec.primaryKey().size();
        Map<List<Object>, Row> rows = new LinkedHashMap<>();
        for (List<Row> round : rounds(spec).subList(0, upTo)) {
            for (Row in : round) {
                List<Object> key = new ArrayList<>();
                for (int i = 0; i < keyArity; i++) {
                    key.add(in.getField(i));
                }
                RowKind kind = in.getKind();
                Row held = rows.get(key);
                if (kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE) {
                    if (spec.kind != Kind.DEDUPLICATE) {
                        throw new IllegalStateException("retraction in " + spec.name);
                    }
                    rows.remove(key);
                    continue;
                }
                Row out = Row.copy(in);
                out.setKind(RowKind.INSERT);
                if (held != null && spec.kind != Kind.DEDUPLICATE) {
                    for (int i = keyArity; i < out.getArity(); i++) {
                        out.setField(i, merge(spec.kind, i - keyArity, held.getField(i), in.getField(i)));
                    }
                }
                rows.put(key, out);
            }
        }
        return new ArrayList<>(rows.values());
    }

    /** Column c (after the key) of an aggregation or partial-update row: held merged with next. */
    private static Object merge(Kind kind, int c, Object held, Object next) {
        if (next == null) {
            return held;
        }
        if (held == null || kind == Kind.PARTIAL_UPDATE) {
            return next;
        }
        switch (c) {
            case 0: // b: sum
                return (Long) held + (Long) next;
            case 1: // d: max
                return Math.max((Double) held, (Double) next);
            default: // s: last_non_null_value
                return next;
        }
    }

    /** The rounds of rows of a table: round r is streamed, then the source waits for a checkpoint. */
    static List<List<Row>> rounds(Spec spec) {
        Random rng = new Random(("fjord-flink/" + spec.name).hashCode());
        Map<List<Object>, Row> live = new LinkedHashMap<>();
        List<List<Row>> rounds = new ArrayList<>();
        for (int r = 0; r < spec.rounds; r++) {
            List<Row> round = new ArrayList<>();
            int ops = r == 0 ? 16 : 8 + rng.nextInt(8);
            for (int i = 0; i < ops; i++) {
                List<Object> key = new ArrayList<>();
                if (spec.partitioned) {
                    key.add(spec.partitionValues[rng.nextBoolean() ? 0 : 1]);
                }
                key.add(1 + rng.nextInt(r == 0 ? 12 : 20));
                switch (spec.kind) {
                    case DEDUPLICATE:
                        dedupOp(rng, spec, key, live, round);
                        break;
                    case AGGREGATION:
                        round.add(row(RowKind.INSERT, key, nullable(rng, (long) rng.nextInt(1000) - 300),
                                nullable(rng, randomDouble(rng)), nullable(rng, randomString(rng))));
                        break;
                    case PARTIAL_UPDATE:
                        round.add(row(RowKind.INSERT, key,
                                rng.nextInt(3) == 0 ? (long) rng.nextInt(1_000_000) : null,
                                rng.nextInt(3) == 0 ? randomString(rng) : null,
                                rng.nextInt(3) == 0 ? randomDecimal(rng) : null,
                                rng.nextInt(3) == 0 ? randomTimestamp(rng, 3) : null));
                        break;
                    default:
                        throw new IllegalStateException();
                }
            }
            rounds.add(round);
        }
        return rounds;
    }

    private static void dedupOp(Random rng, Spec spec, List<Object> key, Map<List<Object>, Row> live,
            List<Row> round) {
        Row old = live.get(key);
        if (old == null) {
            Row row = dedupRow(rng, RowKind.INSERT, key);
            live.put(key, row);
            round.add(row);
            return;
        }
        double x = rng.nextDouble();
        if (x < 0.35) {
            Row before = Row.copy(old);
            before.setKind(RowKind.UPDATE_BEFORE);
            round.add(before);
            Row after = dedupRow(rng, RowKind.UPDATE_AFTER, key);
            live.put(key, after);
            round.add(after);
        } else if (x < 0.55) {
            Row after = dedupRow(rng, RowKind.UPDATE_AFTER, key);
            live.put(key, after);
            round.add(after);
        } else if (x < 0.85) {
            Row gone = Row.copy(old);
            gone.setKind(RowKind.DELETE);
            live.remove(key);
            round.add(gone);
        } else {
            Row again = dedupRow(rng, RowKind.INSERT, key);
            live.put(key, again);
            round.add(again);
        }
    }

    private static Row dedupRow(Random rng, RowKind kind, List<Object> key) {
        return row(kind, key,
                nullable(rng, rng.nextLong() >> rng.nextInt(64)),
                nullable(rng, randomString(rng)),
                nullable(rng, randomDouble(rng)),
                nullable(rng, randomDecimal(rng)),
                nullable(rng, randomTimestamp(rng, 3)),
                nullable(rng, randomTimestamp(rng, 6)),
                nullable(rng, LocalDate.ofEpochDay(rng.nextInt(40_000) - 10_000)));
    }

    private static Row row(RowKind kind, List<Object> key, Object... values) {
        Object[] fields = new Object[key.size() + values.length];
        for (int i = 0; i < key.size(); i++) {
            fields[i] = key.get(i);
        }
        System.arraycopy(values, 0, fields, key.size(), values.length);
        Row row = Row.of(fields);
        row.setKind(kind);
        return row;
    }

    private static Object nullable(Random rng, Object v) {
        return rng.nextInt(8) == 0 ? null : v;
    }

    private static final List<String> STRINGS = Arrays.asList(
            "x", "y", "", "\u00e9t\u00e9", "quote \" and back\\slash", "line\nbreak", "\u65e5\u672c");

    private static String randomString(Random rng) {
        return STRINGS.get(rng.nextInt(STRINGS.size())) + (rng.nextBoolean() ? "" : "-" + rng.nextInt(100));
    }

    private static double randomDouble(Random rng) {
        switch (rng.nextInt(5)) {
            case 0:
                return rng.nextInt(100) / 8.0;
            case 1:
                return -rng.nextDouble() * 1e-9;
            case 2:
                return rng.nextDouble() * 1e22;
            default:
                return (rng.nextDouble() - 0.5) * 1000;
        }
    }

    private static BigDecimal randomDecimal(Random rng) {
        // DECIMAL(12, 3): up to 9 integer digits
        return BigDecimal.valueOf(rng.nextLong() % 1_000_000_000_000L, 3);
    }

    private static LocalDateTime randomTimestamp(Random rng, int precision) {
        long seconds = -400_000_000L + (long) (rng.nextDouble() * 2_400_000_000L);
        int nanos = rng.nextInt(1_000_000_000);
        nanos -= nanos % (precision == 3 ? 1_000_000 : 1_000);
        return LocalDateTime.ofEpochSecond(seconds, nanos, java.time.ZoneOffset.UTC);
    }
}
