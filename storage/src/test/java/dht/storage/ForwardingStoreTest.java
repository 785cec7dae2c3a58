package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A wrapper built on {@link ForwardingStore} passes everything through: a {@link Store} method it
 * did not override would fall to the interface's default (a copying scan, a purge that refuses),
 * silently changing what the wrapped store does. So every method of the interface, defaults
 * included, must be overridden here; the clustered node's wrappers inherit that.
 */
class ForwardingStoreTest {

    @Test
    void everyStoreMethodIsPassedThroughNotLeftToItsDefault() {
        List<String> missing = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            try {
                Method own = ForwardingStore.class.getMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass() != ForwardingStore.class) missing.add(m.toString());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("Store methods ForwardingStore leaves to the interface").isEmpty();
    }
}
