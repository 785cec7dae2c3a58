package dht.storage;

/**
 * The CRC-32C of two byte strings joined, from their two CRCs and the second one's length:
 * {@code crc(A || B) == combine(crc(A), crc(B), |B|)}, the identity zlib's {@code crc32_combine}
 * rests on, for the Castagnoli polynomial of {@link java.util.zip.CRC32C}.
 *
 * <p>Why: {@link WalReader} tests many lengths for a log record whose length field is damaged, and
 * the length is the first thing the record's CRC covers. With this, one running CRC over the body
 * serves every candidate length instead of one pass over the body per candidate.
 *
 * <p>How: a CRC register is linear over GF(2), so the part of {@code crc(A)} that survives into
 * {@code crc(A || B)} is {@code crc(A)} carried through |B| zero bytes: a 32x32 bit matrix raised to
 * the power |B|: the matrices for 2^k zero bytes are built once, and a combine multiplies by one of
 * them for each bit set in |B| (at most 63 small products).
 */
final class Crc32cCombine {
    /** CRC-32C (Castagnoli), reflected. */
    private static final int POLY = 0x82F63B78;
    /** ZEROS[k]: the matrix that carries a CRC register through 2^k zero bytes. */
    private static final int[][] ZEROS = new int[63][];

    static {
        int[] bit = new int[32]; // the operator for one zero bit
        bit[0] = POLY;
        for (int n = 1; n < 32; n++) bit[n] = 1 << (n - 1);
        int[] m = square(square(square(bit))); // eight bits: one byte
        for (int k = 0; k < ZEROS.length; k++) {
            ZEROS[k] = m;
            m = square(m);
        }
    }

    private Crc32cCombine() {}

    static int combine(int crcA, int crcB, long lengthB) {
        if (lengthB < 0) throw new IllegalArgumentException("negative length " + lengthB);
        int crc = crcA;
        for (int k = 0; lengthB != 0; k++, lengthB >>>= 1) {
            if ((lengthB & 1) != 0) crc = times(ZEROS[k], crc);
        }
        return crc ^ crcB;
    }

    private static int times(int[] matrix, int vector) {
        int sum = 0;
        for (int i = 0; vector != 0; i++, vector >>>= 1) {
            if ((vector & 1) != 0) sum ^= matrix[i];
        }
        return sum;
    }

    private static int[] square(int[] matrix) {
        int[] square = new int[32];
        for (int n = 0; n < 32; n++) square[n] = times(matrix, matrix[n]);
        return square;
    }
}
