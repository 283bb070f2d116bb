package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void writesNestedMapsAndListsInOrderWithIndentation() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("name", "W1");
    value.put("points", List.of(1, 2));
    value.put("empty", Map.of());
    value.put("ok", true);
    value.put("none", null);

    assertThat(Json.write(value))
        .isEqualTo(
            """
            {
              "name": "W1",
              "points": [
                1,
                2
              ],
              "empty": {},
              "ok": true,
              "none": null
            }
            """);
  }

  @Test
  void escapesStrings() {
    assertThat(Json.write("a\"b\\c\nd\te\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\"\n");
  }

  @Test
  void writesNumbersCompactlyAndNonFiniteOnesAsNull() {
    assertThat(Json.number(3.0)).isEqualTo("3");
    assertThat(Json.number(120000.4)).isEqualTo("120000");
    assertThat(Json.number(1.5)).isEqualTo("1.5");
    assertThat(Json.number(0.000123)).isEqualTo("0.000123");
    assertThat(Json.number(1234.5678)).isEqualTo("1234.57");
    assertThat(Json.number(1.5e-7)).isEqualTo("1.5e-07");
    assertThat(Json.number(Double.NaN)).isEqualTo("null");
    assertThat(Json.number(Double.POSITIVE_INFINITY)).isEqualTo("null");
    assertThat(Json.write(List.of(7L, 2.5f))).isEqualTo("[\n  7,\n  2.5\n]\n");
  }

  @Test
  void rejectsValuesItCannotWrite() {
    assertThatThrownBy(() -> Json.write(new Object())).hasMessageContaining("java.lang.Object");
  }
}
