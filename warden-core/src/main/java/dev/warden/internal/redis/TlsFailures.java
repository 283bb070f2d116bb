package dev.warden.internal.redis;

import java.security.cert.CertificateException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * Tells what a failed TLS connection failed on, from the JDK's exceptions in a failure's causes and
 * suppressed exceptions.
 */
final class TlsFailures {
  private TlsFailures() {}

  /**
   * Returns what failed, in words a user can act on, or {@code null} if no cause of {@code failure}
   * is a TLS failure.
   */
  static String explain(Throwable failure) {
    boolean tls = false;
    StringBuilder seen = new StringBuilder();
    // Causes and suppressed exceptions: a cluster client reports each seed's failure as a
    // suppressed exception of "Cannot retrieve cluster partitions".
    Deque<Throwable> next = new ArrayDeque<>();
    Set<Throwable> visited = Collections.newSetFromMap(new IdentityHashMap<>());
    if (failure != null) {
      next.add(failure);
    }
    while (!next.isEmpty()) {
      Throwable t = next.poll();
      if (!visited.add(t)) {
        continue;
      }
      if (t instanceof SSLException || t instanceof CertificateException) {
        tls = true;
      }
      seen.append(' ').append(t.getMessage());
      if (t.getCause() != null) {
        next.add(t.getCause());
      }
      next.addAll(List.of(t.getSuppressed()));
    }
    if (!tls) {
      return null;
    }
    String text = seen.toString().toLowerCase(Locale.ROOT);
    if (text.contains("no subject alternative") || text.contains("no name matching")) {
      return "TLS failed: the server's certificate does not name the host connected to"
          + " (hostname verification)";
    }
    if (text.contains("pkix") || text.contains("unable to find valid certification path")) {
      return "TLS failed: the server's certificate is not trusted (it is not signed by a trusted"
          + " CA; give the CA with TlsOptions.trustCertificates)";
    }
    if (text.contains("certificate_required")
        || text.contains("bad_certificate")
        || text.contains("unknown_ca")
        || text.contains("certificate_unknown")) {
      return "TLS failed: the server refused this client's certificate (or wants one: give it with"
          + " TlsOptions.clientCertificate)";
    }
    if (text.contains("expired") || text.contains("not yet valid")) {
      return "TLS failed: a certificate is expired or not yet valid";
    }
    return "TLS failed";
  }
}
