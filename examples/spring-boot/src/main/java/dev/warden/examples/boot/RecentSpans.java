package dev.warden.examples.boot;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The last finished spans, kept in memory and listed at {@code GET /spans}: where a real
 * application sends them to Zipkin or an OpenTelemetry collector. Spring Boot hands every {@link
 * SpanHandler} bean to Brave.
 */
@Component
public class RecentSpans extends SpanHandler {
  private static final int KEPT = 500;

  /**
   * One finished span.
   *
   * @param name the span's name, e.g. {@code warden acquire lock}
   * @param traceId its trace
   * @param id its own id
   * @param parentId its parent's id, or null for a root span
   * @param micros how long it lasted
   */
  public record Span(String name, String traceId, String id, String parentId, long micros) {}

  private final Deque<Span> spans = new ArrayDeque<>(); // guarded by this

  @Override
  public boolean end(TraceContext context, MutableSpan span, Cause cause) {
    Span finished =
        new Span(
            span.name(),
            context.traceIdString(),
            context.spanIdString(),
            context.parentIdString(),
            span.finishTimestamp() - span.startTimestamp());
    synchronized (this) {
      spans.addLast(finished);
      if (spans.size() > KEPT) {
        spans.removeFirst();
      }
    }
    return true;
  }

  /**
   * Returns the spans kept, oldest first.
   *
   * @return a copy of the spans
   */
  public synchronized List<Span> spans() {
    return new ArrayList<>(spans);
  }
}
