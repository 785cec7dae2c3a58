package dht.client;

import java.time.Duration;
import javax.net.ssl.SSLContext;

/** What a built client runs with; fixed at build time. */
record Settings(Duration connectTimeout, Duration requestTimeout, SSLContext sslContext, RetryPolicy retryPolicy) {
}
