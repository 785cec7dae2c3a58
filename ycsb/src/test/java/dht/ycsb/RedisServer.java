package dht.ycsb;

import dht.testkit.TestPorts;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** A redis-server process on a free loopback port, without persistence, for one test class. */
final class RedisServer implements AutoCloseable {
    private final Process process;
    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The redis-server binary on the PATH, if there is one. */
    static Optional<Path> binary() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, "redis-server");
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    static RedisServer start(Path binary, Path workDir) throws IOException, InterruptedException {
        int port = TestPorts.free();
        Process p = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", workDir.toString())
                .redirectErrorStream(true)
                .redirectOutput(workDir.resolve("redis.log").toFile())
                .start();
        RedisServer server = new RedisServer(p, port);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                if ("PONG".equals(j.ping())) return server;
            } catch (JedisConnectionException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    server.close();
                    throw new IOException("redis-server did not answer on port " + port + "; see "
                            + workDir.resolve("redis.log"), e);
                }
                Thread.sleep(50);
            }
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
}
