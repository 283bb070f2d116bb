import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks a staged release: what {@code mvn -Prelease verify} deployed into {@code target/staging}
 * (a Maven repository layout) is everything Maven Central needs, for every published module.
 *
 * <pre>java scripts/StagingCheck.java STAGING_DIR PROJECT_DIR</pre>
 *
 * <p>The published modules are the parent POM and every module of PROJECT_DIR/pom.xml whose POM
 * does not set {@code maven.deploy.skip} to true. Exactly these are staged, at the project's
 * version, each with:
 *
 * <ul>
 *   <li>a POM with what Central requires: name and description of its own; url, licenses (name and
 *       url), developers and scm (url and connection), its own or from the staged parent;
 *   <li>for a jar: the jar (with META-INF/LICENSE and NOTICE, and a module-info or an
 *       Automatic-Module-Name), a sources jar with the source of every class, and a javadoc jar; a
 *       jar without classes (the starter) carries a README.txt in both instead;
 *   <li>.md5 and .sha1 files that match every file, and .asc signatures for all files or none
 *       (checked with gpg when present).
 * </ul>
 *
 * <p>Also: warden-bom has no parent, the parent's version, and manages exactly the published jars
 * at the project version; every public type of the published sources outside {@code internal}
 * packages has an {@code @since}, and no {@code @since} names a version after the one staged.
 *
 * <p>Prints one line per artifact and exits 1 listing every problem found.
 */
public final class StagingCheck {
  private static final String BOM = "warden-bom";
  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "^public\\s+(?:(?:final|abstract|sealed|non-sealed|static|strictfp)\\s+)*"
              + "(?:class|interface|enum|record|@interface)\\s",
          Pattern.MULTILINE);
  private static final Pattern SINCE = Pattern.compile("@since\\s+(\\S+)");

  private final Path staging;
  private final Path project;
  private final boolean verbose;
  private final List<String> problems = new ArrayList<>();
  private int signed;
  private int unsigned;

  private StagingCheck(Path staging, Path project, boolean verbose) {
    this.staging = staging;
    this.project = project;
    this.verbose = verbose;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: java scripts/StagingCheck.java STAGING_DIR PROJECT_DIR");
      System.exit(2);
    }
    Path staging = Path.of(args[0]);
    Path project = Path.of(args[1]);
    StagingCheck check = new StagingCheck(staging, project, true);
    check.run();
    if (!check.problems.isEmpty()) {
      System.out.println("staging check: " + check.problems.size() + " problem(s) in " + staging);
      check.problems.forEach(p -> System.out.println("  " + p));
      System.exit(1);
    }
    System.out.println("staging check: complete, no problem (" + staging + ")");
    int missed = Mutations.run(staging, project);
    System.exit(missed == 0 ? 0 : 1);
  }

  /** Runs the check on a copy of a staging directory (and of the project's POMs). */
  static List<String> problems(Path staging, Path project) throws Exception {
    StagingCheck check = new StagingCheck(staging, project, false);
    check.run();
    return check.problems;
  }

  private void report(String line) {
    if (verbose) {
      System.out.println(line);
    }
  }

  private void run() throws Exception {
    Element root = pom(project.resolve("pom.xml"));
    String groupId = text(root, "groupId");
    String version = text(root, "version");
    String groupPath = groupId.replace('.', '/');

    // artifactId -> packaging, for every module that is published
    Map<String, String> published = new LinkedHashMap<>();
    published.put(text(root, "artifactId"), "pom");
    for (Element module : children(child(root, "modules"), "module")) {
      Element pom = pom(project.resolve(module.getTextContent().trim()).resolve("pom.xml"));
      Element properties = child(pom, "properties");
      String skip = properties == null ? null : text(properties, "maven.deploy.skip");
      if (!"true".equals(skip)) {
        String packaging = text(pom, "packaging");
        published.put(text(pom, "artifactId"), packaging == null ? "jar" : packaging);
      }
    }
    if (!"pom".equals(published.get(BOM))) {
      problems.add(BOM + " is not a published pom module of " + project.resolve("pom.xml"));
    }

    Path groupDir = staging.resolve(groupPath);
    if (!Files.isDirectory(groupDir)) {
      problems.add(
          "nothing staged under " + groupDir + " (run mvn -Prelease verify on the whole project)");
      return;
    }
    Set<String> staged = new TreeSet<>();
    try (Stream<Path> dirs = Files.list(groupDir)) {
      dirs.filter(Files::isDirectory).forEach(d -> staged.add(d.getFileName().toString()));
    }
    for (String artifactId : staged) {
      if (!published.containsKey(artifactId)) {
        problems.add(artifactId + " is staged but is not published (maven.deploy.skip?)");
      }
    }
    for (Map.Entry<String, String> artifact : published.entrySet()) {
      String artifactId = artifact.getKey();
      if (!staged.contains(artifactId)) {
        problems.add(artifactId + " is not staged");
        continue;
      }
      checkArtifact(groupPath, artifactId, version, artifact.getValue());
    }
    checkBom(groupId, version, published);
    if (signed > 0 && unsigned > 0) {
      problems.add(signed + " staged files are signed and " + unsigned + " are not: all or none");
    }
    report(
        signed > 0
            ? "  signatures: every file signed, checked with gpg"
            : "  signatures: none (no GPG key named: -Dgpg.keyname=KEY signs; RELEASING.md)");
    if (version.endsWith("-SNAPSHOT")) {
      report("  a SNAPSHOT: Maven Central takes only a release version (RELEASING.md)");
    }
  }

  private void checkArtifact(String groupPath, String artifactId, String version, String packaging)
      throws Exception {
    Path dir = staging.resolve(groupPath).resolve(artifactId).resolve(version);
    String coordinates = "dev.warden:" + artifactId + ":" + version;
    if (!Files.isDirectory(dir)) {
      problems.add(coordinates + ": no directory " + dir);
      return;
    }
    Map<String, Path> files = new LinkedHashMap<>();
    List<String> kinds =
        "pom".equals(packaging)
            ? List.of(".pom")
            : List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar");
    for (String kind : kinds) {
      Path file = stagedFile(dir, artifactId, version, kind);
      if (file == null) {
        problems.add(coordinates + ": no " + kind.replaceFirst("^[-.]", "") + " file");
      } else {
        files.put(kind, file);
        checkChecksumsAndSignature(coordinates, file);
      }
    }
    Path pomFile = files.get(".pom");
    if (pomFile != null) {
      checkPomMetadata(coordinates, pomFile, groupPath, version);
    }
    if (files.size() == 4) {
      checkJars(
          coordinates,
          version,
          files.get(".jar"),
          files.get("-sources.jar"),
          files.get("-javadoc.jar"));
    }
    report(
        "  "
            + coordinates
            + ": "
            + String.join(
                " ", files.keySet().stream().map(k -> k.replaceFirst("^[-.]", "")).toList()));
  }

  /** The file of one kind (".pom", "-sources.jar", ...); a SNAPSHOT's carries a timestamp. */
  private Path stagedFile(Path dir, String artifactId, String version, String kind)
      throws IOException {
    String base = version.endsWith("-SNAPSHOT") ? version.substring(0, version.length() - 9) : null;
    Pattern name =
        Pattern.compile(
            Pattern.quote(artifactId + "-")
                + (base == null
                    ? Pattern.quote(version)
                    : Pattern.quote(base) + "-(?:SNAPSHOT|\\d{8}\\.\\d{6}-\\d+)")
                + Pattern.quote(kind));
    List<Path> found;
    try (Stream<Path> list = Files.list(dir)) {
      found =
          list.filter(f -> name.matcher(f.getFileName().toString()).matches()).sorted().toList();
    }
    if (found.size() > 1) {
      problems.add(dir + ": " + found.size() + " files of kind " + kind + " (stale staging?)");
    }
    return found.isEmpty() ? null : found.get(found.size() - 1);
  }

  private void checkChecksumsAndSignature(String coordinates, Path file) throws Exception {
    byte[] content = Files.readAllBytes(file);
    for (String algorithm : List.of("MD5", "SHA-1")) {
      Path sum = Path.of(file + "." + algorithm.toLowerCase().replace("-", ""));
      if (!Files.isRegularFile(sum)) {
        problems.add(coordinates + ": no " + sum.getFileName());
        continue;
      }
      String expected =
          HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(content));
      String written = Files.readString(sum).trim().split("\\s+")[0];
      if (!expected.equalsIgnoreCase(written)) {
        problems.add(coordinates + ": " + sum.getFileName() + " does not match the file");
      }
    }
    Path asc = Path.of(file + ".asc");
    if (!Files.isRegularFile(asc)) {
      unsigned++;
      return;
    }
    signed++;
    Process gpg =
        new ProcessBuilder("gpg", "--batch", "--verify", asc.toString(), file.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(gpg.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (gpg.waitFor() != 0) {
      problems.add(coordinates + ": " + asc.getFileName() + " does not verify: " + output.trim());
    }
  }

  private void checkPomMetadata(String coordinates, Path pomFile, String groupPath, String version)
      throws Exception {
    Element pom = pom(pomFile);
    for (String own : List.of("name", "description")) {
      if (blank(text(pom, own))) {
        problems.add(coordinates + ": the POM has no <" + own + "> of its own");
      }
    }
    // Central's required metadata, from the POM or, as Maven inherits it, its staged parent
    Element parentPom = null;
    Element parent = child(pom, "parent");
    String ownVersion = text(pom, "version");
    String effectiveVersion =
        ownVersion != null || parent == null ? ownVersion : text(parent, "version");
    if (!version.equals(effectiveVersion)) {
      problems.add(coordinates + ": the POM's version is " + effectiveVersion);
    }
    if (parent != null) {
      String parentId = text(parent, "artifactId");
      String parentVersion = text(parent, "version");
      Path dir = staging.resolve(groupPath).resolve(parentId).resolve(parentVersion);
      Path file = Files.isDirectory(dir) ? stagedFile(dir, parentId, parentVersion, ".pom") : null;
      if (file == null) {
        problems.add(
            coordinates + ": its parent " + parentId + ":" + parentVersion + " is not staged");
      } else {
        parentPom = pom(file);
      }
    }
    requireMetadata(coordinates, pom, parentPom, "url");
    requireMetadata(coordinates, pom, parentPom, "licenses/license/name");
    requireMetadata(coordinates, pom, parentPom, "licenses/license/url");
    requireMetadata(coordinates, pom, parentPom, "developers/developer/name");
    requireMetadata(coordinates, pom, parentPom, "scm/url");
    requireMetadata(coordinates, pom, parentPom, "scm/connection");
  }

  private void requireMetadata(String coordinates, Element pom, Element parentPom, String path) {
    if (blank(path(pom, path)) && (parentPom == null || blank(path(parentPom, path)))) {
      problems.add(coordinates + ": the POM (nor its parent) has no <" + path + ">");
    }
  }

  private void checkJars(String coordinates, String version, Path jar, Path sources, Path javadoc)
      throws IOException {
    Set<String> classes = new TreeSet<>();
    try (JarFile main = new JarFile(jar.toFile())) {
      for (String required : List.of("META-INF/LICENSE", "META-INF/NOTICE")) {
        if (main.getEntry(required) == null) {
          problems.add(coordinates + ": the jar has no " + required);
        }
      }
      main.stream()
          .map(ZipEntry::getName)
          .filter(n -> n.endsWith(".class") && !n.contains("$") && !n.endsWith("module-info.class"))
          .forEach(n -> classes.add(n.substring(0, n.length() - ".class".length())));
      Manifest manifest = main.getManifest();
      String moduleName =
          manifest == null ? null : manifest.getMainAttributes().getValue("Automatic-Module-Name");
      if (main.getEntry("module-info.class") == null && blank(moduleName)) {
        problems.add(
            coordinates + ": the jar has neither a module-info nor an Automatic-Module-Name");
      }
    }
    Set<String> sourceFiles = new TreeSet<>();
    // a Kotlin file's classes take names of its choosing (@file:JvmName), so a package with Kotlin
    // sources counts as covered by them
    Set<String> kotlinPackages = new TreeSet<>();
    try (JarFile src = new JarFile(sources.toFile())) {
      for (ZipEntry entry : src.stream().toList()) {
        String name = entry.getName();
        if (name.endsWith(".java")) {
          sourceFiles.add(name.substring(0, name.length() - ".java".length()));
          checkSince(coordinates, version, name, src.getInputStream(entry));
        } else if (name.endsWith(".kt")) {
          kotlinPackages.add(folderOf(name));
        }
      }
      if (classes.isEmpty() && src.getEntry("README.txt") == null) {
        problems.add(
            coordinates + ": a jar without classes, and its sources jar has no README.txt");
      }
    }
    for (String type : classes) {
      if (!sourceFiles.contains(type) && !kotlinPackages.contains(folderOf(type))) {
        problems.add(coordinates + ": the sources jar lacks " + type + ".java");
      }
    }
    try (JarFile docs = new JarFile(javadoc.toFile())) {
      String required = classes.isEmpty() ? "README.txt" : "index.html";
      if (docs.getEntry(required) == null) {
        problems.add(coordinates + ": the javadoc jar has no " + required);
      }
    }
  }

  /** The folder of a jar entry or type path ("dev/warden/kotlin" for "dev/warden/kotlin/X.kt"). */
  private static String folderOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? "" : path.substring(0, slash);
  }

  /** A public type of the API says since when it exists, and never a version after this one. */
  private void checkSince(String coordinates, String version, String file, InputStream in)
      throws IOException {
    if (file.contains("/internal/") || file.endsWith("module-info.java")) {
      return;
    }
    String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    Matcher type = PUBLIC_TYPE.matcher(source);
    if (type.find()) {
      int doc = source.lastIndexOf("/**", type.start());
      if (doc < 0 || !source.substring(doc, type.start()).contains("@since")) {
        problems.add(
            coordinates + ": " + file + " declares a public type without @since in its doc");
      }
    }
    Matcher since = SINCE.matcher(source);
    while (since.find()) {
      if (compareVersions(since.group(1), version) > 0) {
        problems.add(
            coordinates + ": " + file + " says @since " + since.group(1) + ", after " + version);
      }
    }
  }

  private void checkBom(String groupId, String version, Map<String, String> published)
      throws Exception {
    Element bom = pom(project.resolve(BOM).resolve("pom.xml"));
    if (child(bom, "parent") != null) {
      problems.add(BOM + " has a parent: importing it would import the parent's pins too");
    }
    if (!version.equals(text(bom, "version"))) {
      problems.add(BOM + "'s version " + text(bom, "version") + " is not the project's " + version);
    }
    Set<String> managed = new TreeSet<>();
    Element management = child(bom, "dependencyManagement");
    Element dependencies = management == null ? null : child(management, "dependencies");
    for (Element dependency : children(dependencies, "dependency")) {
      String artifactId = text(dependency, "artifactId");
      String group = text(dependency, "groupId");
      String managedVersion = text(dependency, "version");
      if (!groupId.equals(group) && !"${project.groupId}".equals(group)) {
        problems.add(BOM + " manages " + group + ":" + artifactId + ", which is not Warden's");
      }
      if (!"${project.version}".equals(managedVersion) && !version.equals(managedVersion)) {
        problems.add(BOM + " manages " + artifactId + " at " + managedVersion);
      }
      managed.add(artifactId);
    }
    Set<String> jars = new TreeSet<>();
    published.forEach(
        (artifactId, packaging) -> {
          if (!"pom".equals(packaging)) {
            jars.add(artifactId);
          }
        });
    if (!managed.equals(jars)) {
      problems.add(BOM + " manages " + managed + ", but the published jars are " + jars);
    }
  }

  /**
   * Compares dotted versions numerically, ignoring a qualifier ("0.2" is before "0.2.0-SNAPSHOT").
   */
  static int compareVersions(String a, String b) {
    String[] x = a.replaceFirst("-.*", "").split("\\.");
    String[] y = b.replaceFirst("-.*", "").split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = Integer.compare(number(x[i]), number(y[i]));
      if (c != 0) {
        return c;
      }
    }
    return x.length <= y.length ? 0 : 1;
  }

  private static int number(String part) {
    try {
      return Integer.parseInt(part);
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }

  private static Element pom(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    try (InputStream in = Files.newInputStream(file)) {
      Document document = factory.newDocumentBuilder().parse(in);
      return document.getDocumentElement();
    } catch (IOException e) {
      throw new UncheckedIOException(file.toString(), e);
    }
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && name.equals(e.getTagName())) {
        return e;
      }
    }
    return null;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent != null) {
      for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element e && name.equals(e.getTagName())) {
          found.add(e);
        }
      }
    }
    return found;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }

  private static String path(Element start, String path) {
    Element e = start;
    for (String step : path.split("/")) {
      e = child(e, step);
    }
    return e == null ? null : e.getTextContent().trim();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /**
   * The check's own test, run after every passing check: each mutation breaks a copy of the
   * complete staging (or of the project's POMs) in one way, and the check must report that very
   * problem. A check that let one pass could not fail, so the build fails.
   */
  static final class Mutations {
    interface Mutation {
      void apply(Path staging, Path project) throws Exception;
    }

    private record Case(String name, String expected, Mutation mutation) {}

    static int run(Path staging, Path project) throws Exception {
      List<Case> cases =
          List.of(
              new Case(
                  "a missing sources jar",
                  "no sources.jar file",
                  (st, pr) -> Files.delete(file(st, "warden-core", "-sources.jar"))),
              new Case(
                  "a wrong checksum",
                  ".sha1 does not match the file",
                  (st, pr) ->
                      Files.writeString(
                          Path.of(file(st, "warden-core", ".jar") + ".sha1"), "0".repeat(40))),
              new Case(
                  "a POM without its description",
                  "has no <description> of its own",
                  (st, pr) ->
                      rewrite(
                          file(st, "warden-shedlock", ".pom"),
                          "(?s)<description>.*?</description>",
                          "")),
              new Case(
                  "a parent without licenses",
                  "has no <licenses/license/name>",
                  (st, pr) ->
                      rewrite(
                          file(st, "warden-parent", ".pom"), "(?s)<licenses>.*?</licenses>", "")),
              new Case(
                  "an internal module staged",
                  "warden-it is staged but is not published",
                  (st, pr) -> Files.createDirectories(st.resolve("dev/warden/warden-it/x"))),
              new Case(
                  "a javadoc jar without its pages",
                  "the javadoc jar has no index.html",
                  (st, pr) ->
                      rezip(file(st, "warden-micrometer", "-javadoc.jar"), "index.html", null)),
              new Case(
                  "a class without its source",
                  "the sources jar lacks dev/warden/testkit/StartGate.java",
                  (st, pr) ->
                      rezip(
                          file(st, "warden-testkit", "-sources.jar"),
                          "dev/warden/testkit/StartGate.java",
                          null)),
              new Case(
                  "an @since after the version",
                  "says @since 9.9",
                  (st, pr) ->
                      rezip(
                          file(st, "warden-core", "-sources.jar"),
                          null,
                          source -> source.replace("@since 0.2", "@since 9.9"))),
              new Case(
                  "a public type without @since",
                  "without @since in its doc",
                  (st, pr) ->
                      rezip(
                          file(st, "warden-shedlock", "-sources.jar"),
                          null,
                          source -> source.replace("@since", "@see"))),
              new Case(
                  "a jar without its licence",
                  "the jar has no META-INF/LICENSE",
                  (st, pr) -> rezip(file(st, "warden-shedlock", ".jar"), "META-INF/LICENSE", null)),
              new Case(
                  "a BOM that forgets a published jar",
                  BOM + " manages [",
                  (st, pr) ->
                      rewrite(
                          pr.resolve(BOM).resolve("pom.xml"),
                          "(?s)<dependency>\\s*<groupId>dev.warden</groupId>\\s*"
                              + "<artifactId>warden-micrometer</artifactId>.*?</dependency>",
                          "")),
              new Case(
                  "a published module not staged",
                  "warden-cli is not staged",
                  (st, pr) ->
                      rewrite(
                          pr.resolve("warden-cli").resolve("pom.xml"),
                          "<maven.deploy.skip>true</maven.deploy.skip>",
                          "")));
      Path temp = Files.createTempDirectory("staging-check-");
      int missed = 0;
      try {
        int i = 0;
        for (Case c : cases) {
          Path st = temp.resolve(i + "/staging");
          Path pr = temp.resolve(i + "/project");
          i++;
          copy(staging, st);
          copyPoms(project, pr);
          c.mutation().apply(st, pr);
          List<String> found = problems(st, pr);
          if (found.stream().noneMatch(p -> p.contains(c.expected()))) {
            missed++;
            System.out.println("  mutation not caught: " + c.name() + " (reported: " + found + ")");
          }
        }
      } finally {
        try (Stream<Path> all = Files.walk(temp)) {
          for (Path f : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.delete(f);
          }
        }
      }
      System.out.println(
          "staging check's own test: "
              + (cases.size() - missed)
              + " of "
              + cases.size()
              + " broken stagings caught");
      return missed;
    }

    /** The staged file of one kind of one artifact (the only version staged). */
    private static Path file(Path staging, String artifactId, String kind) throws IOException {
      try (Stream<Path> all = Files.walk(staging.resolve("dev/warden").resolve(artifactId))) {
        return all.filter(
                f -> {
                  String name = f.getFileName().toString();
                  return name.endsWith(kind)
                      && (kind.startsWith("-") || !name.matches(".*-(sources|javadoc)\\.jar"));
                })
            .findFirst()
            .orElseThrow(() -> new IllegalStateException(artifactId + kind + " not staged"));
      }
    }

    private static void rewrite(Path file, String regex, String replacement) throws IOException {
      String before = Files.readString(file);
      String after = before.replaceFirst(regex, replacement);
      if (after.equals(before)) {
        throw new IllegalStateException(file + ": nothing matches " + regex);
      }
      Files.writeString(file, after);
      resum(file);
    }

    /** Rewrites a jar without the entry {@code drop}, or with every .java source edited. */
    private static void rezip(
        Path jar, String drop, java.util.function.UnaryOperator<String> editSource)
        throws IOException {
      Path out = Path.of(jar + ".new");
      try (JarFile in = new JarFile(jar.toFile());
          java.util.zip.ZipOutputStream zip =
              new java.util.zip.ZipOutputStream(Files.newOutputStream(out))) {
        for (ZipEntry entry : in.stream().toList()) {
          if (entry.getName().equals(drop)) {
            continue;
          }
          byte[] bytes = in.getInputStream(entry).readAllBytes();
          if (editSource != null && entry.getName().endsWith(".java")) {
            bytes =
                editSource
                    .apply(new String(bytes, StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
          }
          zip.putNextEntry(new ZipEntry(entry.getName()));
          zip.write(bytes);
          zip.closeEntry();
        }
      }
      Files.move(out, jar, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      resum(jar);
    }

    /** Writes the checksums anew, so that only the mutation itself is wrong. */
    private static void resum(Path file) throws IOException {
      if (!Files.isRegularFile(Path.of(file + ".sha1"))) {
        return;
      }
      byte[] content = Files.readAllBytes(file);
      try {
        for (String algorithm : List.of("MD5", "SHA-1")) {
          Files.writeString(
              Path.of(file + "." + algorithm.toLowerCase().replace("-", "")),
              HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(content)));
        }
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    private static void copy(Path from, Path to) throws IOException {
      try (Stream<Path> all = Files.walk(from)) {
        for (Path f : all.toList()) {
          Path target = to.resolve(from.relativize(f).toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(target);
          } else {
            Files.copy(f, target);
          }
        }
      }
    }

    /** The root POM and every module's, which is all the check reads of the project. */
    private static void copyPoms(Path project, Path to) throws Exception {
      Files.createDirectories(to);
      Files.copy(project.resolve("pom.xml"), to.resolve("pom.xml"));
      for (Element module : children(child(pom(project.resolve("pom.xml")), "modules"), "module")) {
        String dir = module.getTextContent().trim();
        Files.createDirectories(to.resolve(dir));
        Files.copy(project.resolve(dir).resolve("pom.xml"), to.resolve(dir).resolve("pom.xml"));
      }
    }
  }
}
