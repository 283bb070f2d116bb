package dev.warden.testkit;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Holds a value in an {@link ExtensionContext.Store} and closes it when JUnit closes the store, at
 * the end of the context that owns it.
 *
 * <p>It implements both {@link AutoCloseable}, which JUnit 5.13 and later close, and the deprecated
 * {@link ExtensionContext.Store.CloseableResource}, which is all that earlier versions close; JUnit
 * 5.13 closes a value implementing both exactly once.
 */
@SuppressWarnings("deprecation")
final class StoredResource<T> implements AutoCloseable, ExtensionContext.Store.CloseableResource {
  private final T value;
  private final Runnable closer;

  private StoredResource(T value, Runnable closer) {
    this.value = value;
    this.closer = closer;
  }

  static <T> StoredResource<T> of(T value, Runnable closer) {
    return new StoredResource<>(value, closer);
  }

  /** Returns the value stored under {@code key}, creating and storing it first if absent. */
  @SuppressWarnings("unchecked") // Only this class stores under the testkit's namespace.
  static <T> T getOrCreate(
      ExtensionContext.Store store, String key, Supplier<StoredResource<T>> creator) {
    return ((StoredResource<T>)
            store.getOrComputeIfAbsent(key, k -> creator.get(), StoredResource.class))
        .get();
  }

  /** Returns the value stored under {@code key}, or {@code null}. */
  // TypeParameterUnusedInFormals: the store is untyped; the caller names what it stored under key
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  static <T> T get(ExtensionContext.Store store, String key) {
    StoredResource<T> resource = store.get(key, StoredResource.class);
    return resource == null ? null : resource.get();
  }

  T get() {
    return value;
  }

  @Override
  public void close() {
    closer.run();
  }
}
