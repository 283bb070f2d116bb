package dev.warden.cli;

/** Reports a command line that cannot be run as given; {@link Main} turns it into exit status 2. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
