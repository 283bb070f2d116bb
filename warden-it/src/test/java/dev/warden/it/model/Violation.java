package dev.warden.it.model;

/**
 * A broken invariant: {@code kind} names the invariant (what shrinking keeps failing), the message
 * says what the model saw.
 */
final class Violation extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String kind;
  private String step; // what the step that broke it was doing, when it broke inside a step

  Violation(String kind, String message) {
    super(kind + ": " + message, null, false, false);
    this.kind = kind;
  }

  String kind() {
    return kind;
  }

  String step() {
    return step;
  }

  Violation during(String step) {
    this.step = step;
    return this;
  }
}
