package io.remold.kinitiras;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** Quantities as k8s.io/apimachinery's resource.Quantity reads, rounds and writes them (quantity.go, amount.go). */
class QuantitiesTest {
    @ParameterizedTest(name = "{0}: milli {1}, units {2}")
    @CsvSource({"100m, 100, 1", "0.1, 100, 1", "1, 1000, 1", "1.0005, 1001, 2", "1Ki, 1024000, 1024",
            "1.5Gi, 1610612736000, 1610612736", "2e3, 2000000, 2000", "1P, 1000000000000000000, 1000000000000000",
            "500u, 1, 1", "1n, 1, 1"})
    void readsAndRoundsUp(String text, long milli, long units) {
        BigDecimal value = Quantities.parse(text).orElseThrow();
        assertThat(Quantities.milliValue(value), is(milli));
        assertThat(Quantities.value(value), is(units));
    }

    @ParameterizedTest(name = "{0}m is {1}")
    @CsvSource({"0, 0", "1, 1m", "10, 10m", "500, 500m", "1000, 1", "1500, 1500m", "2000, 2", "100000, 100",
            "12000000, 12k"})
    void writesMilliQuantitiesCanonically(long milli, String text) {
        assertThat(Quantities.decimalMilli(milli), is(text));
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({"0, 0", "512, 512", "1023, 1023", "1024, 1Ki", "1536, 1536", "536870912, 512Mi",
            "50000000, 50000000", "1610612736, 1536Mi"})
    void writesBinaryQuantitiesCanonically(long n, String text) {
        assertThat(Quantities.binary(n), is(text));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"abc", "1Kb", "1e", "--1", "1 m"})
    void refusesWhatIsNoQuantity(String text) {
        assertThat(Quantities.parse(text).isEmpty(), is(true));
    }
}
