package fjord.oracle;

import java.nio.charset.StandardCharsets;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;

/**
 * The rows of `make bench`, exactly as bench/bench_rows.h defines them (splitmix64 of the row
 * index gives the key, the partition and 20 strings of 10 characters), and the order-independent
 * checksum of rows read back (wrapping sum of FNV-1a-64 per row).
 */
final class BenchRows {
    private BenchRows() {}

    static final int STRINGS = 20;
    static final int STRING_LEN = 10;
    private static final byte[] ALPHABET =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
                    .getBytes(StandardCharsets.US_ASCII);

    static long splitMix64(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static int keyOf(long h, long keys) {
        return (int) ((h >>> 1) % keys);
    }

    static int partitionOf(long h) {
        return (int) ((h >>> 40) % 10);
    }

    static long rowBytes(boolean withPartition) {
        return (withPartition ? 8 : 4) + STRINGS * STRING_LEN;
    }

    /** Row i: [p,] k, s0..s19. */
    static GenericRow row(long i, long keys, boolean withPartition) {
        long h = splitMix64(i);
        int off = withPartition ? 2 : 1;
        GenericRow row = new GenericRow(off + STRINGS);
        if (withPartition) {
            row.setField(0, partitionOf(h));
        }
        row.setField(off - 1, keyOf(h, keys));
        for (int j = 0; j < STRINGS; j++) {
            long x = splitMix64(h + j + 1);
            byte[] s = new byte[STRING_LEN];
            for (int c = 0; c < STRING_LEN; c++) {
                s[c] = ALPHABET[(int) ((x >>> (6 * c)) & 63)];
            }
            row.setField(off + j, BinaryString.fromBytes(s));
        }
        return row;
    }

    /** Wrapping sum of per-row FNV-1a-64 over (k little-endian, each string then 0xff). */
    static final class Checksum {
        long sum;
        long rows;

        void add(InternalRow row, int keyPos) {
            long h = 0xcbf29ce484222325L;
            int key = row.getInt(keyPos);
            for (int b = 0; b < 4; b++) {
                h = (h ^ ((key >>> (8 * b)) & 0xff)) * 0x100000001b3L;
            }
            for (int j = 0; j < STRINGS; j++) {
                byte[] s = row.getString(keyPos + 1 + j).toBytes();
                for (byte c : s) {
                    h = (h ^ (c & 0xff)) * 0x100000001b3L;
                }
                h = (h ^ 0xff) * 0x100000001b3L;
            }
            sum += h;
            rows++;
        }

        String hex() {
            return String.format("%016x", sum);
        }
    }
}
