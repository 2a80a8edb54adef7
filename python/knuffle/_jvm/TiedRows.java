package knuffle.spark;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The rows that share their label with another row, and each one's place in its run's tie order
 * (listed by the driver), kept as JDK arrays only, {@code {rows, places, filter, {shift}}}: the
 * value Spark broadcasts, read by tasks whose class loader may differ from the driver's.
 *
 * <p>Most rows are not tied: a bitmap of about 16 bits per tied row, indexed by a Fibonacci hash of
 * the row number (Knuth, TAOCP vol. 3, 6.4), answers "not tied" for almost all of them before the
 * binary search.
 */
final class TiedRows {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private TiedRows() {}

  /**
   * The broadcast value of {@code bytes}: the tied rows (ascending), then as many places, each as
   * little-endian int64.
   */
  static long[][] of(byte[] bytes) {
    if (bytes.length % 16 != 0) {
      throw new IllegalArgumentException("tied rows and places differ in length");
    }
    long[] rows = new long[bytes.length / 16];
    long[] places = new long[rows.length];
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.asLongBuffer().get(rows).get(places);
    int bits = 16;
    while (bits < 30 && (1L << bits) < 16L * rows.length) {
      bits++;
    }
    long[] filter = new long[(1 << bits) >>> 6];
    int shift = 64 - bits;
    for (long row : rows) {
      int h = (int) ((row * GOLDEN) >>> shift);
      filter[h >>> 6] |= 1L << h;
    }
    return new long[][] {rows, places, filter, {shift}};
  }

  /** The place of {@code row} in its run's tie order; 0 for a row not listed. */
  static long placeOf(long[][] tied, long row) {
    long[] filter = tied[2];
    int h = (int) ((row * GOLDEN) >>> tied[3][0]);
    if ((filter[h >>> 6] & (1L << h)) == 0) {
      return 0;
    }
    int at = Arrays.binarySearch(tied[0], row);
    return at >= 0 ? tied[1][at] : 0;
  }
}
