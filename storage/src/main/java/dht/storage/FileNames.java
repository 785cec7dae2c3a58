package dht.storage;

import java.nio.file.Path;

/** Names of the files in a store directory: {@code NNNNNN.log}, {@code NNNNNN.sst}, MANIFEST, LOCK. */
final class FileNames {
    static final String LOG = ".log";
    static final String TABLE = ".sst";
    static final String LOCK = "LOCK";
    /** Appended to a table or log set aside as damaged: {@code NNNNNN.sst.corrupt}, kept, never read again. */
    static final String CORRUPT = ".corrupt";

    private FileNames() {}

    static Path log(Path dir, long n) { return dir.resolve(String.format(java.util.Locale.ROOT, "%06d", n) + LOG); }

    static Path table(Path dir, long n) { return dir.resolve(String.format(java.util.Locale.ROOT, "%06d", n) + TABLE); }

    /** Where {@code file} is kept once set aside as damaged. */
    static Path corrupt(Path file) { return file.resolveSibling(file.getFileName() + CORRUPT); }

    /** The number of a {@code .log} or {@code .sst} name with the given suffix, or -1. */
    static long number(String name, String suffix) {
        if (!name.endsWith(suffix)) return -1;
        String digits = name.substring(0, name.length() - suffix.length());
        if (digits.isEmpty() || digits.length() > 18) return -1;
        for (int i = 0; i < digits.length(); i++) if (!Character.isDigit(digits.charAt(i))) return -1;
        return Long.parseLong(digits);
    }
}
