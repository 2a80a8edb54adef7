package knuffle.spark;

/**
 * The labels of the table order (docs/table-order.md, step 1): row {@code i}'s label is word
 * {@code i} of the ChaCha20 keystream keyed by the seed's label key. ChaCha20 is D. J. Bernstein's
 * ("ChaCha, a variant of Salsa20", 2008) in the layout of the Rust crate rand_chacha: a 64-bit
 * block counter in words 12-13, stream 0 in words 14-15; word {@code i} is word {@code i mod 16} of
 * block {@code i / 16}.
 *
 * <p>One stream per thread: it keeps the last block computed, so consecutive rows cost one block per
 * 16 rows.
 */
final class LabelStream {
  private static final int[] CONSTANTS = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

  private final int[] key;
  private final int[] words = new int[16];
  private final int[] state = new int[16];
  private long block = -1;

  /** @param key the label key's 32 bytes as eight little-endian words */
  LabelStream(int[] key) {
    this.key = key;
  }

  /** The label (0 to 2^32 - 1) of row {@code row} (0 to 2^63 - 1). */
  long label(long row) {
    long wanted = row >>> 4;
    if (wanted != block) {
      compute(wanted);
      block = wanted;
    }
    return words[(int) (row & 15)] & 0xFFFFFFFFL;
  }

  private void compute(long counter) {
    int[] x = state;
    System.arraycopy(CONSTANTS, 0, x, 0, 4);
    System.arraycopy(key, 0, x, 4, 8);
    x[12] = (int) counter;
    x[13] = (int) (counter >>> 32);
    x[14] = 0;
    x[15] = 0;
    for (int round = 0; round < 10; round++) {
      quarter(x, 0, 4, 8, 12);
      quarter(x, 1, 5, 9, 13);
      quarter(x, 2, 6, 10, 14);
      quarter(x, 3, 7, 11, 15);
      quarter(x, 0, 5, 10, 15);
      quarter(x, 1, 6, 11, 12);
      quarter(x, 2, 7, 8, 13);
      quarter(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 4; i++) {
      words[i] = x[i] + CONSTANTS[i];
    }
    for (int i = 0; i < 8; i++) {
      words[4 + i] = x[4 + i] + key[i];
    }
    words[12] = x[12] + (int) counter;
    words[13] = x[13] + (int) (counter >>> 32);
    words[14] = x[14];
    words[15] = x[15];
  }

  private static void quarter(int[] x, int a, int b, int c, int d) {
    x[a] += x[b];
    x[d] = Integer.rotateLeft(x[d] ^ x[a], 16);
    x[c] += x[d];
    x[b] = Integer.rotateLeft(x[b] ^ x[c], 12);
    x[a] += x[b];
    x[d] = Integer.rotateLeft(x[d] ^ x[a], 8);
    x[c] += x[d];
    x[b] = Integer.rotateLeft(x[b] ^ x[c], 7);
  }
}
