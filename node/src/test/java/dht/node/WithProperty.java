package dht.node;

/** Runs test code with a system property set (or cleared, for null), then puts back what was there. */
final class WithProperty {
    /** The code to run; its result is handed back. */
    interface Action<T> {
        T run() throws Exception;
    }

    private WithProperty() {
    }

    static <T> T with(String name, String value, Action<T> action) throws Exception {
        String before = System.getProperty(name);
        set(name, value);
        try {
            return action.run();
        } finally {
            set(name, before);
        }
    }

    private static void set(String name, String value) {
        if (value == null) System.clearProperty(name);
        else System.setProperty(name, value);
    }
}
