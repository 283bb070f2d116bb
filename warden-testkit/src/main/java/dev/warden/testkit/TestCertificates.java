package dev.warden.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made at test run time with {@code openssl} (nothing is checked in): a certificate
 * authority, and certificates and PKCS#8 keys it signs, each valid for two days. For {@link
 * RedisServer#startWithTls} and the like.
 *
 * @since 0.2
 */
public final class TestCertificates {
  private static final String OPENSSL = "/usr/bin/openssl";

  private final Path directory;

  /**
   * The files of one certificate: the certificate and its unencrypted PKCS#8 key, PEM.
   *
   * @param certificate the certificate's file
   * @param key the private key's file
   */
  public record Issued(Path certificate, Path key) {}

  private TestCertificates(Path directory) {
    this.directory = directory;
  }

  /**
   * Makes the files in {@code directory}.
   *
   * @param directory where the files go (a test's temporary directory)
   * @return the maker
   */
  public static TestCertificates in(Path directory) {
    return new TestCertificates(directory);
  }

  /**
   * Makes a self-signed certificate authority named {@code name}.
   *
   * @param name its common name, also the files' name
   * @return its files
   * @throws IOException if openssl fails
   */
  public Issued authority(String name) throws IOException {
    Issued ca = files(name);
    run(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=" + name,
        "-keyout",
        ca.key().toString(),
        "-out",
        ca.certificate().toString());
    return ca;
  }

  /**
   * Makes a certificate signed by {@code ca} for {@code subjectAltNames} (e.g. {@code
   * IP:127.0.0.1}), usable by a server and a client.
   *
   * @param ca the authority that signs it
   * @param name its common name, also the files' name
   * @param subjectAltNames the names it is valid for
   * @return its files
   * @throws IOException if openssl fails
   */
  public Issued issue(Issued ca, String name, String subjectAltNames) throws IOException {
    Issued issued = files(name);
    run(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=" + name,
        "-addext",
        "subjectAltName=" + subjectAltNames,
        "-addext",
        "extendedKeyUsage=serverAuth,clientAuth",
        "-CA",
        ca.certificate().toString(),
        "-CAkey",
        ca.key().toString(),
        "-keyout",
        issued.key().toString(),
        "-out",
        issued.certificate().toString());
    return issued;
  }

  private Issued files(String name) {
    return new Issued(directory.resolve(name + ".crt"), directory.resolve(name + ".key"));
  }

  private void run(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(OPENSSL));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("openssl timed out: " + command);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running openssl", e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IOException("openssl failed: " + command + "\n" + output);
    }
    if (!Files.isRegularFile(directory.resolve(args[args.length - 1]))) {
      throw new IOException("openssl made no " + args[args.length - 1] + ": " + output);
    }
  }
}
