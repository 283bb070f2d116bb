package dev.warden.bench;

/** A run that could not be measured: a worker threw, or did not stop; carries the cause. */
final class BenchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BenchException(String message, Throwable cause) {
    super(message, cause);
  }

  BenchException(String message) {
    super(message);
  }
}
