package dht.cli;

/** Entry point of dht.jar: the picocli command tree (serve, cluster, bench, get, put, delete, scan). */
public final class Main {
    public static void main(String[] args) {
        System.out.println("dht: not yet wired");
    }
}
