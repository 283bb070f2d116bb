package dev.warden.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * A transaction manager with no resource that records, at begin, commit and rollback, whether a
 * probe (the lock under test held by the calling thread) was true.
 */
final class RecordingTransactionManager extends AbstractPlatformTransactionManager {
  private static final long serialVersionUID = 1L;

  final transient List<String> events = new CopyOnWriteArrayList<>();
  transient volatile Supplier<Boolean> held = () -> false;

  @Override
  protected Object doGetTransaction() {
    return new Object();
  }

  @Override
  protected void doBegin(Object transaction, TransactionDefinition definition) {
    events.add("begin held=" + held.get());
  }

  @Override
  protected void doCommit(DefaultTransactionStatus status) {
    events.add("commit held=" + held.get());
  }

  @Override
  protected void doRollback(DefaultTransactionStatus status) {
    events.add("rollback held=" + held.get());
  }
}
