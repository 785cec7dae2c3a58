package dht.bench;

/** The request mixes the generator can offer; see {@link RequestFactory} for what each sends. */
public enum Workload { put, get, mixed, delete, range }
