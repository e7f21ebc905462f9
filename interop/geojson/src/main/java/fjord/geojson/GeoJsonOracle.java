package fjord.geojson;

import org.apache.paimon.flink.action.cdc.mysql.MySqlTypeUtils;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Reads lines "wkb HEX" or "mysql HEX" and prints, per line, what Java Paimon makes of the bytes:
 * "wkb": MySqlTypeUtils.convertWkbArray(bytes) (the Debezium path); "mysql":
 * convertWkbArray(CanalFieldParser.convertGeoType2WkbArray(bytes)) (the canal-json path). A
 * failure prints "ERROR" and the class of the exception thrown.
 */
public final class GeoJsonOracle {
    public static void main(String[] args) throws Exception {
        Method toWkb =
                Class.forName("org.apache.paimon.flink.action.cdc.format.canal.CanalFieldParser")
                        .getDeclaredMethod("convertGeoType2WkbArray", byte[].class);
        toWkb.setAccessible(true);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (BufferedReader in =
                args.length > 0
                        ? Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)
                        : new BufferedReader(
                                new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                int space = line.indexOf(' ');
                String mode = space < 0 ? line : line.substring(0, space);
                byte[] bytes = hex(space < 0 ? "" : line.substring(space + 1).trim());
                out.println(run(mode, bytes, toWkb));
            }
        }
        out.flush();
    }

    private static String run(String mode, byte[] bytes, Method toWkb) {
        try {
            byte[] wkb = bytes;
            if (mode.equals("mysql")) {
                wkb = (byte[]) toWkb.invoke(null, (Object) bytes);
            } else if (!mode.equals("wkb")) {
                throw new IllegalArgumentException("unknown mode " + mode);
            }
            return MySqlTypeUtils.convertWkbArray(wkb);
        } catch (InvocationTargetException e) {
            return "ERROR " + e.getCause().getClass().getName();
        } catch (Throwable e) {
            return "ERROR " + e.getClass().getName();
        }
    }

    private static byte[] hex(String s) throws IOException {
        if (s.length() % 2 != 0) throw new IOException("odd hex length: " + s);
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
