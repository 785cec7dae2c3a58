package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Store;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every cluster path writes through these wrappers of the node's store: a {@link Store} method one
 * of them left to the interface's default (a copying scan, a purge that refuses, a write the hash
 * trees or the purge horizon never see) would silently change what a clustered node does. So each
 * must pass every method of the interface on, itself or through {@code ForwardingStore}.
 */
class StoreWrappersTest {

    @ParameterizedTest
    @ValueSource(classes = {LateWriteReportingStore.class, TreeTrackingStore.class, LoneNodeStore.class})
    void everyStoreMethodIsPassedThroughNotLeftToItsDefault(Class<?> wrapper) {
        List<String> missing = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            try {
                Method own = wrapper.getMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass().isInterface()) missing.add(m.toString());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("Store methods %s leaves to the interface", wrapper.getSimpleName()).isEmpty();
    }
}
