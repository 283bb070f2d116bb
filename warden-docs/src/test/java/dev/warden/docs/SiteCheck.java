package dev.warden.docs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Opens every page of a built site in a real headless Chromium and reports what a reader would find
 * broken: a page without content, a link to a missing page or anchor, an image that does not load,
 * a resource (style sheet, script, font) the server does not have.
 *
 * <p>The site is served on 127.0.0.1 by a small server that adds a probe script to each page. Once
 * the page has loaded, the probe writes what the browser sees (the main content's text length,
 * every id, every link as the browser resolved it, every image with its natural width) into the
 * DOM, which Chromium prints ({@code --dump-dom}). The server also records every request it could
 * not answer.
 */
final class SiteCheck {
  /** The browsers tried, in order, unless {@code -Dwarden.browser} names one. */
  private static final List<String> BROWSERS = List.of("chromium-headless-shell", "chromium");

  private static final String PROBE_ID = "warden-docs-probe";

  /**
   * The probe, added before each page's {@code </body>}. Content is the first {@code <main>},
   * {@code <article>} or {@code role=main} element (the theme's pages), or {@code #main-content}
   * (the theme's 404 page).
   */
  private static final String PROBE =
      "<script>window.addEventListener('load', function () {\n"
          + "  var e = encodeURIComponent, out = [];\n"
          + "  var main = document.querySelector('main, article, [role=main], #main-content');\n"
          + "  out.push('main ' + (main ? main.innerText.trim().length : -1));\n"
          + "  document.querySelectorAll('[id]').forEach(function (n) { out.push('id ' + e(n.id)); });\n"
          + "  document.querySelectorAll('a[name]').forEach(function (n) {"
          + " out.push('id ' + e(n.name)); });\n"
          + "  document.querySelectorAll('a[href]').forEach(function (a) {"
          + " out.push('link ' + e(a.href)); });\n"
          + "  Array.prototype.forEach.call(document.images, function (i) {\n"
          + "    out.push('img ' + e(i.currentSrc || i.src) + ' '"
          + " + (i.complete ? i.naturalWidth : 0)); });\n"
          + "  var p = document.createElement('pre');\n"
          + "  p.id = '"
          + PROBE_ID
          + "'; p.textContent = out.join('\\n'); document.body.appendChild(p);\n"
          + "});</script>";

  private static final long PAGE_TIMEOUT_SECONDS = 60;

  private final Path site;
  private final Set<String> problems = new LinkedHashSet<>();
  private final Map<String, Set<String>> missing = new TreeMap<>();

  private SiteCheck(Path site) {
    this.site = site.toAbsolutePath().normalize();
  }

  /**
   * Returns what is broken in the site at {@code site}, one line each ({@code PAGE: problem}), in
   * page order; empty if nothing is.
   */
  static List<String> problems(Path site) throws IOException, InterruptedException {
    return new SiteCheck(site).run();
  }

  /** The browser this machine has, or an error naming what to install. */
  static String browser() {
    String chosen = System.getProperty("warden.browser");
    List<String> candidates = chosen == null ? BROWSERS : List.of(chosen);
    for (String candidate : candidates) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(":", -1)) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, candidate))) {
          return Path.of(dir, candidate).toString();
        }
      }
    }
    throw new AssertionError(
        "no headless browser: none of "
            + candidates
            + " is on the PATH (scripts/setup.sh installs chromium-headless-shell)");
  }

  private List<String> run() throws IOException, InterruptedException {
    List<String> pages;
    try (Stream<Path> files = Files.walk(site)) {
      pages =
          files
              .filter(file -> file.toString().endsWith(".html"))
              .map(file -> site.relativize(file).toString().replace('\\', '/'))
              .sorted()
              .toList();
    }
    if (pages.isEmpty()) {
      return List.of(site + ": no page");
    }
    String browser = browser();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::serve);
    server.start();
    Map<String, Probe> probes = new HashMap<>();
    Path profile = Files.createTempDirectory("warden-docs-browser");
    try {
      String origin = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
      for (String page : pages) {
        Probe probe = load(browser, profile, origin, page);
        if (probe != null) {
          probes.put(page, probe);
        }
      }
      for (String page : pages) {
        Probe probe = probes.get(page);
        if (probe != null) {
          judge(page, probe, origin, probes);
        }
      }
    } finally {
      server.stop(0);
      deleteTree(profile);
    }
    synchronized (missing) {
      missing.forEach(
          (path, askers) -> problems.add(String.join(", ", askers) + ": missing resource " + path));
    }
    return List.copyOf(problems);
  }

  /** Loads one page in a fresh browser process; null (and a problem) if it did not load. */
  private Probe load(String browser, Path profile, String origin, String page)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("warden-docs-page", ".html");
    Path err = Files.createTempFile("warden-docs-page", ".log");
    try {
      Process process =
          new ProcessBuilder(
                  browser,
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  "--no-first-run",
                  "--user-data-dir=" + profile,
                  "--virtual-time-budget=10000",
                  "--dump-dom",
                  origin + page)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(PAGE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        problems.add(page + ": did not load within " + PAGE_TIMEOUT_SECONDS + " s");
        return null;
      }
      String dom = Files.readString(out, StandardCharsets.UTF_8);
      Probe probe = Probe.parse(dom);
      if (probe == null) {
        problems.add(
            page
                + ": the browser printed no rendered page (exit "
                + process.exitValue()
                + "): "
                + tail(Files.readString(err, StandardCharsets.UTF_8)));
      }
      return probe;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private void judge(String page, Probe probe, String origin, Map<String, Probe> probes) {
    if (probe.mainText <= 0) {
      problems.add(
          page
              + ": no content (no <main>, <article>, role=main or #main-content element with text)");
    }
    Set<String> brokenImages = new LinkedHashSet<>();
    for (Map.Entry<String, Integer> image : probe.images.entrySet()) {
      if (image.getValue() <= 0) {
        String shown = image.getKey().startsWith(origin) ? pathOf(image.getKey()) : image.getKey();
        brokenImages.add(shown);
        problems.add(page + ": broken image " + shown);
      }
    }
    synchronized (missing) {
      for (String image : brokenImages) {
        Set<String> askers = missing.get(image);
        if (askers != null && askers.remove(page) && askers.isEmpty()) {
          missing.remove(image);
        }
      }
    }
    for (String link : probe.links) {
      if (!link.startsWith(origin)) {
        continue; // another site, mailto:, javascript: ...
      }
      URI uri = URI.create(link);
      String path = uri.getPath();
      String target = targetOf(path);
      String shown = path + (uri.getRawFragment() == null ? "" : "#" + uri.getRawFragment());
      if (target == null) {
        problems.add(page + ": broken link to " + shown + " (no such page in the site)");
        continue;
      }
      String fragment = uri.getFragment();
      Probe targetProbe = probes.get(target);
      if (fragment != null
          && !fragment.isEmpty()
          && targetProbe != null
          && !targetProbe.ids.contains(fragment)) {
        problems.add(
            page + ": broken link to " + shown + " (" + target + " has no id '" + fragment + "')");
      }
    }
  }

  /** The site file a path names (a directory's index.html), or null if there is none. */
  private String targetOf(String path) {
    String relative = path.startsWith("/") ? path.substring(1) : path;
    Path file = site.resolve(relative).normalize();
    if (!file.startsWith(site)) {
      return null;
    }
    if (Files.isDirectory(file)) {
      file = file.resolve("index.html");
    }
    return Files.isRegularFile(file) ? site.relativize(file).toString().replace('\\', '/') : null;
  }

  /** The page a path names, as the problems name pages, or the path if it names none. */
  private String pageOf(String path) {
    String target = targetOf(path);
    return target == null ? path : target;
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String target = targetOf(path);
      if (target == null) {
        if (!path.equals("/favicon.ico")) { // the browser's own guess, not the site's
          String referer = exchange.getRequestHeaders().getFirst("Referer");
          String asker = referer == null ? "(no referer)" : pageOf(URI.create(referer).getPath());
          synchronized (missing) {
            missing.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(asker);
          }
        }
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body = Files.readAllBytes(site.resolve(target));
      String type = contentType(target);
      if (type.startsWith("text/html")) {
        String html = new String(body, StandardCharsets.UTF_8);
        int end = html.lastIndexOf("</body>");
        html = end < 0 ? html + PROBE : html.substring(0, end) + PROBE + html.substring(end);
        body = html.getBytes(StandardCharsets.UTF_8);
      }
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static String contentType(String file) {
    String extension = file.substring(file.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return switch (extension) {
      case "html" -> "text/html; charset=utf-8";
      case "css" -> "text/css; charset=utf-8";
      case "js" -> "text/javascript; charset=utf-8";
      case "json" -> "application/json";
      case "svg" -> "image/svg+xml";
      case "png" -> "image/png";
      case "ico" -> "image/x-icon";
      case "woff" -> "font/woff";
      case "woff2" -> "font/woff2";
      case "ttf" -> "font/ttf";
      default -> "application/octet-stream";
    };
  }

  private static String pathOf(String url) {
    return URI.create(url).getPath();
  }

  private static String tail(String log) {
    String trimmed = log.strip();
    return trimmed.length() <= 400 ? trimmed : "..." + trimmed.substring(trimmed.length() - 400);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted((a, b) -> b.compareTo(a)).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** What the probe saw on one page. */
  private static final class Probe {
    int mainText = -1;
    final Set<String> ids = new LinkedHashSet<>();
    final List<String> links = new ArrayList<>();
    final Map<String, Integer> images = new TreeMap<>();

    /** The probe's report in a dumped DOM, or null if it is not there. */
    static Probe parse(String dom) {
      String open = "<pre id=\"" + PROBE_ID + "\">";
      int start = dom.indexOf(open);
      int end = start < 0 ? -1 : dom.indexOf("</pre>", start);
      if (end < 0) {
        return null;
      }
      Probe probe = new Probe();
      // the probe's text holds only %-escaped words, spaces, digits and newlines
      for (String line : dom.substring(start + open.length(), end).lines().toList()) {
        int space = line.indexOf(' ');
        if (space < 0) {
          continue;
        }
        String kind = line.substring(0, space);
        String rest = line.substring(space + 1);
        switch (kind) {
          case "main" -> probe.mainText = Integer.parseInt(rest);
          case "id" -> probe.ids.add(decode(rest));
          case "link" -> probe.links.add(decode(rest));
          case "img" -> {
            int gap = rest.lastIndexOf(' ');
            probe.images.merge(
                decode(rest.substring(0, gap)),
                Integer.parseInt(rest.substring(gap + 1)),
                Math::min);
          }
          default -> {}
        }
      }
      return probe;
    }

    private static String decode(String escaped) {
      // encodeURIComponent escapes '+' as %2B, so a literal '+' never reaches the decoder
      return URLDecoder.decode(escaped, StandardCharsets.UTF_8);
    }
  }
}
