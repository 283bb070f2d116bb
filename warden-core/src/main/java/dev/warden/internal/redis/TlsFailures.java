package dev.warden.internal.redis;

import java.security.cert.CertificateException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * Tells what a failed TLS connection failed on, from the JDK's exceptions in a failure's causes.
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
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof SSLException || t instanceof CertificateException) {
        tls = true;
      }
      seen.append(' ').append(t.getMessage());
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
