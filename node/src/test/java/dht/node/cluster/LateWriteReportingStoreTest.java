package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Store;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The wrapper passes everything through: a {@link Store} method it does not override would fall to
 * the interface's default (a copying scan, a purge that refuses), silently changing what a
 * clustered node does. So every method of the interface must be overridden here.
 */
class LateWriteReportingStoreTest {

    @Test
    void everyStoreMethodIsPassedThroughNotLeftToItsDefault() {
        List<String> missing = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            try {
                Method own = LateWriteReportingStore.class.getMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass() != LateWriteReportingStore.class) missing.add(m.toString());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("Store methods LateWriteReportingStore leaves to the interface").isEmpty();
    }
}
