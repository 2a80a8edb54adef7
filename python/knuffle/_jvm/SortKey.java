package knuffle.spark;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.api.java.UDF1;

/**
 * A row's sort key in the table order, from its global row number: {@code label << placeBits |
 * place}, where {@code place} is the row's place in its run's tie order (0 for a row whose label is
 * its own). With {@code placeBits} 0 and no tied rows it is the label alone.
 *
 * <p>The entry point for Python is {@link #create}; everything else is package-private.
 */
public final class SortKey implements UDF1<Long, Long> {
  private static final long serialVersionUID = 1L;

  private final int[] key;
  private final Broadcast<long[][]> tied;
  private final int placeBits;
  private transient ThreadLocal<LabelStream> streams;
  private transient long[][] tiedValue;

  private SortKey(int[] key, Broadcast<long[][]> tied, int placeBits) {
    this.key = key;
    this.tied = tied;
    this.placeBits = placeBits;
    this.streams = newStreams();
  }

  /**
   * The sort keys of the seed whose label key is {@code labelKey} (32 bytes). {@code tiedFile}
   * names a file on the driver holding the tied rows (ascending), then their places, each as
   * little-endian int64; it is read here and broadcast once through {@code context}. An empty name:
   * no tied rows.
   */
  public static SortKey create(
      JavaSparkContext context, byte[] labelKey, String tiedFile, int placeBits)
      throws IOException {
    if (labelKey.length != 32) {
      throw new IllegalArgumentException("a label key has 32 bytes");
    }
    if (placeBits < 0 || placeBits > 31) {
      throw new IllegalArgumentException("placeBits must be 0 to 31");
    }
    int[] words = new int[8];
    for (int i = 0; i < 8; i++) {
      words[i] =
          (labelKey[4 * i] & 0xFF)
              | (labelKey[4 * i + 1] & 0xFF) << 8
              | (labelKey[4 * i + 2] & 0xFF) << 16
              | (labelKey[4 * i + 3] & 0xFF) << 24;
    }
    Broadcast<long[][]> tied =
        tiedFile.isEmpty()
            ? null
            : context.broadcast(TiedRows.of(Files.readAllBytes(Paths.get(tiedFile))));
    return new SortKey(words, tied, placeBits);
  }

  @Override
  public Long call(Long row) {
    long r = row;
    if (r < 0) {
      throw new IllegalArgumentException("a row number is never negative: " + r);
    }
    long sortKey = streams.get().label(r) << placeBits;
    return tied == null ? sortKey : sortKey | TiedRows.placeOf(tiedRows(), r);
  }

  /** The broadcast value, read once per task (reading it takes a lock). */
  private long[][] tiedRows() {
    long[][] value = tiedValue;
    if (value == null) {
      value = tied.value();
      tiedValue = value;
    }
    return value;
  }

  private ThreadLocal<LabelStream> newStreams() {
    return ThreadLocal.withInitial(() -> new LabelStream(key));
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    streams = newStreams();
  }
}
