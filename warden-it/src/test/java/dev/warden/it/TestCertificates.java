package dev.warden.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made at test run time with {@code openssl} (nothing is checked in): a certificate
 * authority, and certificates and PKCS#8 keys it signs, each valid for two days.
 */
final class TestCertificates {
  private static final String OPENSSL = "/usr/bin/openssl";

  private final Path directory;

  /** The files of one certificate: the certificate and its unencrypted PKCS#8 key, PEM. */
  record Issued(Path certificate, Path key) {}

  private TestCertificates(Path directory) {
    this.directory = directory;
  }

  /** Makes the files in a new directory under {@code parent}. */
  static TestCertificates in(Path parent) {
    return new TestCertificates(parent);
  }

  /** Makes a self-signed certificate authority named {@code name}. */
  Issued authority(String name) throws IOException {
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
   */
  Issued issue(Issued ca, String name, String subjectAltNames) throws IOException {
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
