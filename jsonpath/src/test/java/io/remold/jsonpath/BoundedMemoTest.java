package io.remold.jsonpath;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import com.google.re2j.Pattern;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The memo of regex matches: the same answers as matching every time, and bounded. */
class BoundedMemoTest {

    /** Each input twice: the second answer comes from the memo and must be the same. */
    @ParameterizedTest(name = "{0} ~ {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ^docker[.]io/        | docker.io/envoy:1   | true
            ^docker[.]io/        | quay.io/envoy:1     | false
            ^docker[.]io/        | dockerxio/envoy:1   | false
            [0-9]+$              | envoy:12            | true
            ^team-[0-9]+$        | team-7              | true
            ^team-[0-9]+$        | team-7x             | false
            ``                   | ``                  | true
            x                    | ``                  | false
            """)
    void findsLikeTheMatcher(String regex, String input, boolean expected) {
        Predicate<String> find = BoundedMemo.find(Pattern.compile(regex));
        assertThat(find.test(input), is(expected));
        assertThat("memoized", find.test(input), is(expected));
        assertThat(memo(find).get(input), is(expected));
    }

    @Test
    void hitsAndMissesOfOnePatternStayApart() {
        Predicate<String> find = BoundedMemo.find(Pattern.compile("^web-"));
        for (int round = 0; round < 3; round++) {
            assertThat(find.test("web-1"), is(true));
            assertThat(find.test("db-1"), is(false));
        }
        assertThat(memo(find).size(), is(2));
    }

    @Test
    void patternsHaveMemosOfTheirOwn() {
        Predicate<String> web = BoundedMemo.find(Pattern.compile("web"));
        Predicate<String> db = BoundedMemo.find(Pattern.compile("db"));
        assertThat(web.test("web-1"), is(true));
        assertThat(db.test("web-1"), is(false));
        assertThat(web.test("web-1"), is(true));
    }

    @Test
    void fullMemoIsClearedAndStaysCorrect() {
        Predicate<String> find = BoundedMemo.find(Pattern.compile("[02468]$"));
        for (int i = 0; i < 3 * BoundedMemo.FIND_ENTRIES + 7; i++) {
            assertThat(find.test("pod-" + i), is(i % 2 == 0));
            assertThat(memo(find).size(), lessThanOrEqualTo(BoundedMemo.FIND_ENTRIES));
        }
        assertThat("cleared when full, then filled again", memo(find).size(), is(7));
    }

    @Test
    void memoIsBoundedInCharacters() {
        var memo = new BoundedMemo<String, Boolean>(100, 10);
        memo.put("abcd", true, 4);
        memo.put("efgh", false, 4);
        assertThat(memo.size(), is(2));
        memo.put("ijkl", true, 4);
        assertThat("12 characters exceed 10: cleared first", memo.size(), is(1));
        assertThat(memo.get("abcd") == null, is(true));
        assertThat(memo.get("ijkl"), is(true));
    }

    @Test
    void longInputsAreMatchedButNotMemoized() {
        Predicate<String> find = BoundedMemo.find(Pattern.compile("y$"));
        String longNo = "x".repeat(BoundedMemo.FIND_MAX_INPUT_CHARS + 1);
        String longYes = "x".repeat(BoundedMemo.FIND_MAX_INPUT_CHARS) + "y";
        assertThat(find.test(longNo), is(false));
        assertThat(find.test(longYes), is(true));
        assertThat(memo(find).size(), is(0));
        String atLimit = "x".repeat(BoundedMemo.FIND_MAX_INPUT_CHARS - 1) + "y";
        assertThat(find.test(atLimit), is(true));
        assertThat(memo(find).size(), is(1));
    }

    @Test
    void nullKeysAreNeverRemembered() {
        var memo = new BoundedMemo<Object, String>(10, 100);
        memo.put(null, "x", 1);
        assertThat(memo.get(null) == null, is(true));
        assertThat(memo.size(), is(0));
    }

    /** {@code =~} and {@code !~} with a literal pattern go through the memo; repeated filters give the same answers. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            $.spec.containers[?(@.image =~ "^docker[.]io/")].name   | ["a"]
            $.spec.containers[?(@.image !~ "^docker[.]io/")].name   | ["b","c"]
            $.spec.containers[?(@.image =~ "envoy")].name           | ["a","b"]
            $.spec.containers[?(@.image !~ "envoy")].name           | ["c"]
            $.spec.containers[?(@.image =~ @.name)].name            | ["c"]
            $.spec.containers[?(@.port =~ "8")].name                | []
            """)
    void filtersMatchTheSameEveryTime(String expression, String expected) {
        JsonValue pod = Json.createReader(new StringReader("""
                {"spec": {"containers": [
                  {"name": "a", "image": "docker.io/envoy:1", "port": 8},
                  {"name": "b", "image": "quay.io/envoy:1"},
                  {"name": "c", "image": "c"}]}}""")).readValue();
        JsonPath path = JsonPath.compile(expression);
        for (int round = 0; round < 3; round++) {
            var names = Json.createArrayBuilder();
            path.select(pod).forEach(selection -> names.add(selection.value()));
            assertThat(names.build().toString(), is(expected));
        }
        assertThat(JsonPath.compile("$.a[?(@ =~ \"x\")]").select(JsonValue.EMPTY_JSON_OBJECT), is(empty()));
    }

    private static BoundedMemo<String, Boolean> memo(Predicate<String> find) {
        return ((BoundedMemo.MemoizedFind) find).memo();
    }
}
