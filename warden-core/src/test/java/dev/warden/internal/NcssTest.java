package dev.warden.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NcssTest {
  @Test
  void countsDeclarationsStatementsAndBlocks() {
    String source =
        """
        package a.b;

        import java.util.List;
        import static java.util.Objects.requireNonNull;

        final class A {
          private int x;

          int f(int y) {
            if (y > 0) {
              x = y;
            } else {
              x = -y;
            }
            return x;
          }
        }
        """;
    // class {, field ;, method {, if {, x = y;, else {, x = -y;, return ;
    assertThat(Ncss.count(source)).isEqualTo(8);
  }

  @Test
  void commentsAndJavadocCountNothing() {
    String bare = "class A {\n  void f() {\n    g();\n  }\n}\n";
    String documented =
        """
        /** A class; with { braces } and ; in its doc. */
        class A {
          /**
           * Calls g; then { returns }.
           */
          void f() {
            // a comment; with { a brace
            g(); /* and; another { */
          }
        }
        """;
    assertThat(Ncss.count(bare)).isEqualTo(3);
    assertThat(Ncss.count(documented)).isEqualTo(3);
  }

  @Test
  void literalsCountNothing() {
    String source =
        """
        class A {
          String s = "a; {b} \\" c;";
          char c = ';';
          char d = '{';
          char e = '\\'';
          String t = \"""
              text; { block }
              \""";
        }
        """;
    // class {, and one ; per field
    assertThat(Ncss.count(source)).isEqualTo(6);
  }

  @Test
  void semicolonsInsideParenthesesAreNotStatements() {
    String source =
        """
        class A {
          void f() {
            for (int i = 0; i < 3; i++) {
              g(i);
            }
            try (var a = open(); var b = open()) {
              h(() -> {
                k();
                m();
              });
            }
          }
        }
        """;
    // class {, method {, for {, g;, try {, lambda {, k;, m;, the h(...) call's ;
    assertThat(Ncss.count(source)).isEqualTo(9);
  }

  @Test
  void codeKeepsLineBreaksSoThatLineNumbersStillHold() {
    String source = "a(); /* one\n two */ b(); // three\nc(\"four\");";
    String code = Ncss.code(source);
    assertThat(code.lines().count()).isEqualTo(source.lines().count());
    assertThat(code).contains("a();").contains("b();").doesNotContain("one", "three", "four");
  }
}
