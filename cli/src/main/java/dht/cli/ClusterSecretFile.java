package dht.cli;

import dht.node.rpc.ClusterSecret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * The file of {@code --cluster-secret-file}: the secret is its content, surrounding white space
 * dropped, at least {@value ClusterSecret#MIN_BYTES} bytes. A file that group or others may read
 * is refused: the secret would not be one.
 */
final class ClusterSecretFile {
    /** What {@code bin/dht cluster} names the secret it makes, in the parent of the nodes' directories. */
    static final String NAME = "cluster-secret";

    private static final Set<PosixFilePermission> OPEN = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    /** A file the node will not use, with the reason in one line. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private ClusterSecretFile() {
    }

    static ClusterSecret read(Path file) throws Refused {
        try {
            if (Files.isDirectory(file)) throw new Refused("--cluster-secret-file " + file + " is a directory, not a file");
            if (!Files.isRegularFile(file)) throw new Refused("--cluster-secret-file " + file + ": no such file");
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.stream().anyMatch(OPEN::contains)) {
                throw new Refused("--cluster-secret-file " + file + " may be read or written by group or others (mode "
                        + PosixFilePermissions.toString(perms) + "): chmod 600 it");
            }
            byte[] secret = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
            if (secret.length < ClusterSecret.MIN_BYTES) {
                throw new Refused("--cluster-secret-file " + file + " holds " + secret.length + " bytes; a secret needs at least "
                        + ClusterSecret.MIN_BYTES + " (for example: openssl rand -hex 32)");
            }
            return new ClusterSecret(secret);
        } catch (UnsupportedOperationException e) {
            throw new Refused("--cluster-secret-file " + file + ": its file system has no POSIX permissions to check");
        } catch (IOException e) {
            throw new Refused("--cluster-secret-file " + file + ": cannot read it: " + e);
        }
    }

    /** The secret file in {@code dir}, made (32 random bytes in hex, mode 0600) unless it is there. */
    static Path createIfAbsent(Path dir) throws IOException {
        Path file = dir.resolve(NAME);
        if (Files.exists(file)) return file;
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            return file;
        }
        Files.writeString(file, HexFormat.of().formatHex(random) + "\n");
        return file;
    }
}
