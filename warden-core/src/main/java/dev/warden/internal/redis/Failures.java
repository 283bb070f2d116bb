package dev.warden.internal.redis;

import dev.warden.WardenException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns client and server errors into {@link WardenException}s that name the object. */
public final class Failures {
  private Failures() {}

  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * Returns whether trying again may succeed: the connection dropped or Redis did not answer in
   * time, or Redis answered that it cannot serve yet (loading, busy script, failover, a slot on the
   * move). Other error replies (wrong key type, script errors) are final.
   */
  public static boolean isTransient(Throwable failure) {
    Throwable t = unwrap(failure);
    if (!(t instanceof RedisException || t instanceof IOException)) {
      return false; // Warden's own verdicts and programming errors are final
    }
    if (t instanceof RedisCommandExecutionException) {
      String message = String.valueOf(t.getMessage());
      return message.startsWith("LOADING")
          || message.startsWith("BUSY")
          || message.startsWith("TRYAGAIN")
          || message.startsWith("MASTERDOWN")
          || message.startsWith("CLUSTERDOWN")
          || message.startsWith("READONLY")
          // a cluster redirection left after Lettuce followed its last: the topology refresh it
          // triggered lets the next attempt reach the slot's owner
          || message.startsWith("MOVED")
          || message.startsWith("ASK");
    }
    return true;
  }

  /**
   * Returns what a caller should see for a failure: a Redis or I/O failure wrapped as a {@link
   * WardenException} naming the object; Warden's own verdicts (e.g. an {@code
   * IllegalMonitorStateException}) as they are.
   */
  public static RuntimeException forCaller(String object, String operation, Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof RuntimeException runtime
        && !(t instanceof RedisException)
        && !(t instanceof CancellationException)) {
      return runtime;
    }
    return wrap(object, operation, t);
  }

  /** Wraps a failure of an operation on an object, with a message a user can act on. */
  public static WardenException wrap(String object, String operation, Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof WardenException warden) {
      return warden;
    }
    String message = Redaction.redact(String.valueOf(t.getMessage()));
    if (Permissions.isRefusal(message)) {
      return new WardenException(
          object + ": " + operation + " failed: " + Permissions.explain(message), t);
    }
    if (message.contains("WRONGTYPE")) {
      return new WardenException(
          object
              + ": "
              + operation
              + " failed: its Redis key holds a value that is not a Warden "
              + "object (another program may use the same key)",
          t);
    }
    return new WardenException(object + ": " + operation + " failed: " + message, t);
  }

  /**
   * Returns whether a connect failed in a way that hides its cause: Lettuce 7.7 reports "Connection
   * closed prematurely" instead of the server's reply when a refused handshake is failed off the
   * connection's event loop (a credentials provider that is not immediate; Warden makes a URI's own
   * credentials immediate, see {@link ClientSetup#uri}), and "RedisHandshakeHandler not registered"
   * when the whole refused handshake ends before the connecting thread has added its listener
   * (about 1 in 1,000 refused logins on a local server). A server that really closes the connection
   * gives the same answer again on the next attempt.
   */
  public static boolean isHandshakeCauseLost(Throwable failure) {
    Throwable root = root(unwrap(failure));
    String message = String.valueOf(root.getMessage());
    return (root instanceof RedisConnectionException
            && message.equals("Connection closed prematurely"))
        || (root instanceof IllegalStateException
            && message.equals("RedisHandshakeHandler not registered"));
  }

  /**
   * Says why a connection could not be made, for a message: an ACL refusal or a TLS failure
   * explained, else the client's own message; never with credentials.
   */
  public static String connectReason(Throwable failure) {
    Throwable t = unwrap(failure);
    Throwable root = root(t);
    String message = Redaction.redact(String.valueOf(t.getMessage()));
    String rootMessage = Redaction.redact(String.valueOf(root.getMessage()));
    if (Permissions.isRefusal(rootMessage)) {
      return Permissions.explain(rootMessage);
    }
    if (root != t && !message.contains(rootMessage)) {
      // "Unable to connect to ..." says less than its cause, e.g. WRONGPASS
      message = message + ": " + rootMessage;
    }
    String tls = TlsFailures.explain(t);
    return tls != null ? tls + " (" + message + ")" : message;
  }

  /** The last cause in {@code failure}'s chain (itself if it has none). */
  private static Throwable root(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }
}
