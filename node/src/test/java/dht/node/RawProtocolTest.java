package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTP framing over raw sockets: pipelining, keep-alive, limits, malformed input. */
class RawProtocolTest {
    static final int MAX_BODY = 1024;
    static final int MAX_URI = 512;
    static final int MAX_HEADER = 1024;

    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(TestNode.config(TestPorts.free(), dir, 64, MAX_BODY, MAX_URI, MAX_HEADER), s -> s);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    RawHttp connect() throws Exception {
        return new RawHttp(node.node.port());
    }

    static String put(String id, String value) {
        return "PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + value.length() + "\r\n\r\n" + value;
    }

    static String get(String pathAndQuery) {
        return "GET " + pathAndQuery + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @Test
    void aControlCharacterInTheRequestTargetIsA400AndStoresNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=a\u0000b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv"
                    + "PUT /v0/entity?id=a\u0001b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv"
                    + "GET /v0/entity?id=a\u007fb HTTP/1.1\r\nHost: x\r\n\r\n"
                    + get("/v0/entity?id=a%00b") + get("/v0/entity?id=a%01b") + get("/v0/status"));
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("control character");
            assertThat(c.read().status()).isEqualTo(400);
            assertThat(c.read().status()).isEqualTo(400);
            assertThat(c.read().status()).as("nothing stored under the key with a NUL").isEqualTo(404);
            assertThat(c.read().status()).isEqualTo(404);
            assertThat(c.read().status()).as("the connection keeps serving").isEqualTo(200);
        }
    }

    /** A raw '#' would end the key there (the decoder takes it for a fragment): a 400, nothing stored. */
    @Test
    void aNumberSignInTheRequestTargetIsA400AndStoresNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=bad#frag HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv"
                    + get("/v0/entity?id=bad") + put("a%23b", "v") + get("/v0/entity?id=a%23b"));
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("%23");
            assertThat(c.read().status()).as("nothing stored under the key before the '#'").isEqualTo(404);
            assertThat(c.read().status()).as("an encoded '#' is part of the key").isEqualTo(201);
            assertThat(c.read().text()).isEqualTo("v");
        }
    }

    @Test
    void pipelinedAnswersComeInRequestOrder() throws Exception {
        try (RawHttp c = connect()) {
            c.send(put("p1", "one") + get("/v0/entity?id=p1") + get("/nowhere") + put("p2", "two")
                    + get("/v0/entity?id=p2") + get("/v0/entity?id=p3") + get("/v0/status"));
            RawHttp.Response r1 = c.read();
            assertThat(r1.status()).isEqualTo(201);
            RawHttp.Response r2 = c.read();
            assertThat(r2.status()).isEqualTo(200);
            assertThat(r2.text()).isEqualTo("one");
            assertThat(c.read().status()).isEqualTo(400);
            assertThat(c.read().status()).isEqualTo(201);
            assertThat(c.read().text()).isEqualTo("two");
            assertThat(c.read().status()).isEqualTo(404);
            assertThat(c.read().status()).isEqualTo(200);
        }
    }

    @Test
    void manyPipelinedRequestsInOneWrite() throws Exception {
        StringBuilder b = new StringBuilder();
        int n = 500;
        for (int i = 0; i < n; i++) b.append(put("m" + i, "v" + i));
        for (int i = 0; i < n; i++) b.append(get("/v0/entity?id=m" + i));
        try (RawHttp c = connect()) {
            c.send(b.toString());
            for (int i = 0; i < n; i++) assertThat(c.read().status()).isEqualTo(201);
            for (int i = 0; i < n; i++) assertThat(c.read().text()).isEqualTo("v" + i);
        }
    }

    @Test
    void keepAliveServesManyRequestsOnOneConnection() throws Exception {
        try (RawHttp c = connect()) {
            for (int i = 0; i < 50; i++) {
                c.send(put("k" + i, "v" + i));
                assertThat(c.read().status()).isEqualTo(201);
                c.send(get("/v0/entity?id=k" + i));
                RawHttp.Response r = c.read();
                assertThat(r.text()).isEqualTo("v" + i);
                assertThat(r.header("connection")).isNull();
            }
        }
    }

    @Test
    void connectionCloseIsHonoured() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void requestsSentBeforeTheClientEndsItsSideAreAllAnsweredThenTheConnectionCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send(put("halfclosed", "hc") + get("/v0/entity?id=halfclosed") + get("/nowhere")
                    + get("/v0/entities?start=halfclosed&end=halfclosee"));
            c.endOutput();
            assertThat(c.read().status()).isEqualTo(201);
            assertThat(c.read().text()).isEqualTo("hc");
            assertThat(c.read().status()).isEqualTo(400);
            RawHttp.Response scan = c.read();
            assertThat(scan.complete()).isTrue();
            assertThat(scan.text()).isEqualTo("halfclosed\nhc");
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = connect()) {
            c.endOutput();
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void aRequestCutShortByTheClientsEndIs400AndChangesNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=cutshort HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234");
            c.endOutput();
            assertThat(c.read().status()).isEqualTo(400);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = connect()) {
            c.send(get("/v0/entity?id=cutshort"));
            assertThat(c.read().status()).isEqualTo(404);
        }
    }

    @Test
    void http10GetsAnAnswerAndKeepAliveOnlyIfAsked() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /v0/entity?id=nothing HTTP/1.0\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(404);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = connect()) {
            c.send("GET /v0/entity?id=nothing HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("connection")).isEqualToIgnoringCase("keep-alive");
            c.send("GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
    }

    @Test
    void chunkedBodiesAndHeadRequestsKeepTheConnectionInStep() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(201);
            c.send("HEAD /v0/entity?id=chunked HTTP/1.1\r\nHost: x\r\n\r\n");
            // HEAD is not part of the API: 405, with the headers of the answer but no body
            String status = c.line();
            assertThat(status).startsWith("HTTP/1.1 405");
            while (!c.line().isEmpty()) {
                // headers
            }
            c.send(get("/v0/entity?id=chunked"));
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("abcde");
        }
    }

    /** Health checks often use HEAD: the status answer's head, Content-Length included, and no body. */
    @Test
    void headOnStatusIs200WithTheHeadersOfGetAndNoBody() throws Exception {
        try (RawHttp c = connect()) {
            c.send("HEAD /v0/status HTTP/1.1\r\nHost: x\r\n\r\n" + get("/v0/status"));
            assertThat(c.line()).startsWith("HTTP/1.1 200");
            java.util.Map<String, String> headers = new java.util.HashMap<>();
            for (String l = c.line(); !l.isEmpty(); l = c.line()) {
                headers.put(l.substring(0, l.indexOf(':')).toLowerCase(java.util.Locale.ROOT), l.substring(l.indexOf(':') + 1).trim());
            }
            assertThat(headers.get("content-type")).isEqualTo("application/json");
            // The next bytes are the GET's answer, not a body of the HEAD's.
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).startsWith("{");
            // the report's figures (uptime) may have grown by a digit or two in between
            assertThat(Integer.parseInt(headers.get("content-length"))).isBetween(r.body().length - 16, r.body().length + 16);
            c.send("POST /v0/status HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
            RawHttp.Response post = c.read();
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.header("allow")).isEqualTo("GET, HEAD");
        }
    }

    @Test
    void aBodyArrivingInPiecesOrFollowedByTrailersIsStoredWhole() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=pieces HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
            Thread.sleep(100); // the first half reaches the decoder on its own
            c.send("world");
            assertThat(c.read().status()).isEqualTo(201);
            c.send("PUT /v0/entity?id=trailers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n0\r\nX-One: 1\r\nX-Two: 2\r\nX-Three: 3\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(201);
            c.send(get("/v0/entity?id=pieces"));
            assertThat(c.read().text()).isEqualTo("helloworld");
            c.send(get("/v0/entity?id=trailers"));
            assertThat(c.read().text()).isEqualTo("hello");
        }
    }

    @Test
    void malformedPercentEncodingIs400() throws Exception {
        for (String q : new String[] {"id=%zz", "id=k%2", "id=k%", "id=%G0"}) {
            try (RawHttp c = connect()) {
                c.send(get("/v0/entity?" + q));
                assertThat(c.read().status()).as(q).isEqualTo(400);
            }
        }
    }

    @Test
    void rawUtf8InTheUriIsTheSameKeyAsItsPercentEncoding() throws Exception {
        try (RawHttp c = connect()) {
            c.send(("PUT /v0/entity?id=\u00d0\u00b4 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nd"));
            assertThat(c.read().status()).isEqualTo(201);
        }
        assertThat(new String(node.get("/v0/entity?id=%D0%B4").body())).isEqualTo("d");
    }

    @Test
    void oversizedBodyIs413AndTheConnectionStaysUsable() throws Exception {
        String big = "x".repeat(MAX_BODY + 1);
        try (RawHttp c = connect()) {
            c.send(put("big", big) + get("/v0/status"));
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(c.read().status()).isEqualTo(200);
        }
        // chunked: the limit is found while reading
        try (RawHttp c = connect()) {
            String chunk = Integer.toHexString(600) + "\r\n" + "y".repeat(600) + "\r\n";
            c.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunk + chunk + "0\r\n\r\n" + get("/v0/entity?id=big"));
            assertThat(c.read().status()).isEqualTo(413);
            assertThat(c.read().status()).isEqualTo(404);
        }
        // exactly at the limit is fine
        try (RawHttp c = connect()) {
            c.send(put("atlimit", "z".repeat(MAX_BODY)));
            assertThat(c.read().status()).isEqualTo(201);
        }
    }

    /** A Content-Length of digits too large for any number the decoder holds is still a body too large: 413, then close. */
    @Test
    void aContentLengthBeyondEveryLimitIs413AndCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\nabc");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nContent-Length: 12x\r\n\r\nabc");
            assertThat(c.read().status()).as("not a number at all").isEqualTo(400);
        }
        assertThat(node.get("/v0/entity?id=huge").statusCode()).isEqualTo(404);
    }

    @Test
    void expectContinueGetsContinueThenTheAnswer() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=cont HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(100);
            c.send("abc");
            assertThat(c.read().status()).isEqualTo(201);
        }
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=cont HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void anExpectationOtherThanContinueIs417AndChangesNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=exp HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: foo\r\n\r\nabc");
            assertThat(c.read().status()).isEqualTo(417);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(node.get("/v0/entity?id=exp").statusCode()).isEqualTo(404);
    }

    /** Netty reads "gzip, chunked" as chunked; the gzipped bytes must not become the value. */
    @Test
    void aTransferCodingOtherThanChunkedIs501AndChangesNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=gz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(501);
            assertThat(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)).contains("gzip");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(node.get("/v0/entity?id=gz").statusCode()).isEqualTo(404);
    }

    /** A chunk size line past the line limit is a malformed body, not a long request line. */
    @Test
    void aChunkSizeLineTooLongIs400AndChangesNothing() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=ext HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;x="
                    + "e".repeat(4 * MAX_URI) + "\r\nabc\r\n0\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)).contains("chunk size line");
        }
        assertThat(node.get("/v0/entity?id=ext").statusCode()).isEqualTo(404);
    }

    @Test
    void longUriIs414() throws Exception {
        try (RawHttp c = connect()) {
            c.send(get("/v0/entity?id=" + "u".repeat(MAX_URI)));
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(414);
        }
        assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
    }

    @Test
    void longUriIs414AndTheConnectionStaysUsable() throws Exception {
        try (RawHttp c = connect()) {
            c.send(get("/v0/entity?id=" + "u".repeat(MAX_URI)) + get("/v0/status"));
            assertThat(c.read().status()).isEqualTo(414);
            assertThat(c.read().status()).isEqualTo(200);
        }
    }

    /** A long line whose request declares more body than is worth dropping (1 MiB): the 414 says the connection closes. */
    @Test
    void longUriWithABodyPastWhatIsDroppedIs414AndSaysItCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=" + "u".repeat(MAX_URI) + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                    + ((1 << 20) + 1) + "\r\n\r\nabc");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(414);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void uriPastWhatTheDecoderReadsIs414AndCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send(get("/v0/entity?id=" + "u".repeat(4 * MAX_URI)));
            assertThat(c.read().status()).isEqualTo(414);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
    }

    @Test
    void largeHeadersAre431() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(MAX_HEADER) + "\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(431);
        }
        assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
    }

    /**
     * A client still sending when its request is refused gets the whole answer, then an orderly end
     * of stream: no reset that could destroy the answer before it is read (lingering close).
     */
    @Test
    void aClientStillSendingWhenRefusedGetsTheWholeAnswerThenEndOfStream() throws Exception {
        String[][] cases = {
            {"GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(40 * MAX_HEADER), "431"},
            {"GET /v0/entity?id=" + "u".repeat(40 * MAX_URI), "414"},
            {"GET /v0/status HTTP/1.1\r\nNo colon here\r\nX-More: " + "m".repeat(40 * 1024), "400"},
        };
        for (String[] c : cases) {
            try (RawHttp client = connect()) {
                client.send(c[0]);
                // it does not know yet: it goes on sending the same line or header block a while
                for (int i = 0; i < 10; i++) {
                    Thread.sleep(20);
                    client.send("x".repeat(1024));
                }
                RawHttp.Response r = client.read();
                assertThat(r.status()).as(c[1]).isEqualTo(Integer.parseInt(c[1]));
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(r.body()).hasSize(Integer.parseInt(r.header("content-length")));
                assertThat(client.in.read()).as("%s: an orderly end of stream (FIN), not a reset", c[1]).isEqualTo(-1);
            }
        }
        assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
    }

    /** The node holds a closing connection open for input a little longer; a client waiting for the end must not wait with it. */
    @Test
    void anAnswerThatClosesTheConnectionEndsTheStreamAtOnce() throws Exception {
        for (String request : new String[] {
            "GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /v0/status HTTP/1.0\r\n\r\n",
        }) {
            try (RawHttp c = connect()) {
                c.send(request);
                assertThat(c.read().status()).isEqualTo(200);
                long t0 = System.nanoTime();
                assertThat(c.in.read()).isEqualTo(-1);
                assertThat((System.nanoTime() - t0) / 1_000_000).as("ms until end of stream").isLessThan(500);
            }
        }
    }

    @Test
    void malformedRequestsGet400OrACleanCloseAndTheNodeKeepsServing() throws Exception {
        String[] garbage = {
            "GARBAGE\r\n\r\n",
            "GET /v0/status HTTP/9.9\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nNo colon here\r\n\r\n",
            "PUT /v0/entity?id=x HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
            "PUT /v0/entity?id=x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n",
            "\u0000\u0001\u0002\r\n\r\n",
        };
        for (String g : garbage) {
            try (RawHttp c = connect()) {
                c.send(g);
                try {
                    RawHttp.Response r = c.read();
                    assertThat(r.status()).as("%s", g).isEqualTo(400);
                    assertThat(c.closedByServer()).isTrue();
                } catch (java.io.EOFException closedCleanly) {
                    // a clean close is also an answer the contract allows
                }
            }
            assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
        }
        assertThat(node.get("/v0/entity?id=x").statusCode()).isEqualTo(404);
    }

    @Test
    void aMalformedRequestAfterGoodOnesStillGetsTheirAnswersFirst() throws Exception {
        try (RawHttp c = connect()) {
            c.send(put("before", "b") + get("/v0/entity?id=before") + "BROKEN REQUEST LINE\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(201);
            assertThat(c.read().text()).isEqualTo("b");
            assertThat(c.read().status()).isEqualTo(400);
        }
    }
}
