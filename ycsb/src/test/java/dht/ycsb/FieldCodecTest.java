package dht.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;

class FieldCodecTest {
    private static Map<String, ByteIterator> fields(String... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put(nameValue[i], new StringByteIterator(nameValue[i + 1]));
        return m;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> s = new LinkedHashMap<>();
        m.forEach((k, v) -> s.put(k, v.toString()));
        return s;
    }

    @Test
    void roundTripsEveryFieldInOrder() {
        byte[] record = FieldCodec.encode(fields("field0", "a", "field1", "", "ünï", "x\ny"));
        assertThat(strings(FieldCodec.decode(record, null)))
                .containsExactly(Map.entry("field0", "a"), Map.entry("field1", ""), Map.entry("ünï", "x\ny"));
    }

    @Test
    void layoutIsCountThenLengthPrefixedNamesAndValues() {
        byte[] record = FieldCodec.encode(fields("f", "vv"));
        assertThat(record).containsExactly(0, 0, 0, 1, 0, 0, 0, 1, 'f', 0, 0, 0, 2, 'v', 'v');
    }

    @Test
    void decodesOnlyTheFieldsAskedFor() {
        byte[] record = FieldCodec.encode(fields("a", "1", "b", "2", "c", "3"));
        assertThat(strings(FieldCodec.decode(record, Set.of("c", "a", "zz"))))
                .containsOnlyKeys("a", "c").containsEntry("c", "3");
    }

    @Test
    void mergeOverwritesChangedFieldsAndKeepsTheOthers() {
        byte[] record = FieldCodec.encode(fields("a", "1", "b", "2"));
        byte[] merged = FieldCodec.merge(record, fields("b", "two", "c", "3"));
        assertThat(strings(FieldCodec.decode(merged, null)))
                .containsExactly(Map.entry("a", "1"), Map.entry("b", "two"), Map.entry("c", "3"));
    }

    @Test
    void rejectsATruncatedRecord() {
        byte[] record = FieldCodec.encode(fields("field", "value"));
        assertThatThrownBy(() -> FieldCodec.decode(Arrays.copyOf(record, record.length - 1), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
    }
}
