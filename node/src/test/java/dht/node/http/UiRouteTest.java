package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The status page as sent, before its script runs: each row carries the classes the script would
 * give it, so its style labels a joining, leaving or removed node in words without a script too.
 */
class UiRouteTest {
    @Test
    void eachRowCarriesItsRoleAsTheScriptWouldDrawIt() {
        UiRoute ui = new UiRoute("http://a:1", () -> List.of(
                new UiRoute.Row("http://b:2", true, false, null),
                new UiRoute.Row("http://c:3", false, false, "leaving"),
                new UiRoute.Row("http://d:4", true, false, "joining"),
                new UiRoute.Row("http://a:1", true, true, "outside")));
        String html = ui.render();
        assertThat(html).contains("<tr><td>http://b:2</td><td class=\"state up\">up</td>")
                .contains("<tr class=\"leaving\"><td>http://c:3</td><td class=\"state down\">down</td>")
                .contains("<tr class=\"joining\"><td>http://d:4</td>")
                .contains("<tr class=\"self outside\"><td>http://a:1</td>")
                .contains(".outside td:first-child::before { content: \"not a member: \"");
    }
}
