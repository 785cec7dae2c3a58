package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Store;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every cluster path writes through the tracking store: a {@link Store} method it does not
 * override would fall to the interface's default (a copying scan, a purge that refuses, a write
 * the trees never see), silently changing what a clustered node does or leaving the hash trees
 * behind the store. So every method of the interface must be overridden here.
 */
class TreeTrackingStoreTest {

    @Test
    void everyStoreMethodIsPassedThroughNotLeftToItsDefault() {
        List<String> missing = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            try {
                Method own = TreeTrackingStore.class.getMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass() != TreeTrackingStore.class) missing.add(m.toString());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("Store methods TreeTrackingStore leaves to the interface").isEmpty();
    }
}
