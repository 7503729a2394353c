package io.remold.cli.suite;

import io.remold.cli.JsonText;
import jakarta.json.spi.JsonProvider;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code remold test} prints: a table (suite, test, resource, expected, actual, result), each failure with its
 * diff or its messages, and a summary line; or, with {@code --output json}, one JSON object with the same.
 */
final class TestReport {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final List<String> HEADER = List.of("SUITE", "TEST", "RESOURCE", "EXPECTED", "ACTUAL", "RESULT");

    private TestReport() {
    }

    static void print(List<SuiteRun.Row> rows, List<String> errors, int suites, boolean json, PrintStream out) {
        long passed = rows.stream().filter(SuiteRun.Row::passed).count();
        long failed = rows.size() - passed;
        if (json) {
            var results = JSON.createArrayBuilder();
            for (SuiteRun.Row row : rows) {
                var item = JSON.createObjectBuilder().add("suite", row.suite()).add("file", row.file())
                        .add("test", row.test()).add("resource", row.resource()).add("expected", row.expected())
                        .add("actual", row.actual()).add("status", row.passed() ? "pass" : "fail");
                if (!row.passed()) {
                    item.add("reason", row.reason()).add("detail", row.detail());
                }
                results.add(item);
            }
            var errorList = JSON.createArrayBuilder();
            errors.forEach(errorList::add);
            out.print(JsonText.pretty(JSON.createObjectBuilder().add("results", results).add("errors", errorList)
                    .add("summary", JSON.createObjectBuilder().add("suites", suites).add("passed", passed)
                            .add("failed", failed).add("broken", errors.size())).build()));
            return;
        }
        if (!rows.isEmpty()) {
            table(rows, out);
        }
        for (SuiteRun.Row row : rows) {
            if (!row.passed()) {
                out.println();
                out.println("FAIL " + row.suite() + " / " + row.test() + " / " + row.resource() + ": " + row.reason()
                        + " (" + row.file() + ")");
                out.print(row.detail().endsWith("\n") ? row.detail() : row.detail() + "\n");
            }
        }
        out.println();
        out.println(passed + " passed, " + failed + " failed" + (errors.isEmpty() ? "" : ", " + errors.size()
                + " suite" + (errors.size() == 1 ? "" : "s") + " broken") + " (" + suites + " suite"
                + (suites == 1 ? "" : "s") + ")");
    }

    private static void table(List<SuiteRun.Row> rows, PrintStream out) {
        var cells = new ArrayList<List<String>>();
        cells.add(HEADER);
        rows.forEach(r -> cells.add(List.of(r.suite(), r.test(), r.resource(), r.expected(), r.actual(),
                r.passed() ? "PASS" : "FAIL")));
        int[] widths = new int[HEADER.size()];
        cells.forEach(line -> {
            for (int i = 0; i < line.size(); i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        });
        for (List<String> line : cells) {
            var text = new StringBuilder();
            for (int i = 0; i < line.size(); i++) {
                text.append(i == line.size() - 1 ? line.get(i) : String.format("%-" + (widths[i] + 2) + "s",
                        line.get(i)));
            }
            out.println(text);
        }
    }
}
