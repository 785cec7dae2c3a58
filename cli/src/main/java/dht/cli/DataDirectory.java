package dht.cli;

import java.nio.file.Path;

/**
 * How a {@code --data} path is named in logs, in {@code /v0/status} and in the command the
 * cluster launcher prints: absolute, so that it can be found from any directory, and without
 * {@code .} segments ({@code ./data} read "/home/me/./data"). {@code ..} segments stay: with a
 * symbolic link before them, {@code link/..} is the link target's parent, not the directory the
 * text suggests, so removing them (as {@link Path#normalize} does) could name another directory.
 */
final class DataDirectory {
    private DataDirectory() {}

    static Path absolute(Path data) {
        Path abs = data.toAbsolutePath();
        Path out = abs.getRoot();
        for (Path name : abs) {
            if (!name.toString().equals(".")) out = out.resolve(name);
        }
        return out;
    }
}
