package io.remold.engine;

import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

class JsonDiffTest {

    /** Expected operations follow gomodules.xyz/jsonpatch v2 (what KubeMod answers), in its order. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {'a':1}           | {'a':1}             | []
            {'a':1}           | {'a':1.0}           | []
            {'a':1}           | {'a':2}             | [{'op':'replace','path':'/a','value':2}]
            {'a':1}           | {'a':1,'b':{'c':1}} | [{'op':'add','path':'/b','value':{'c':1}}]
            {'a':1,'b':2}     | {'a':1}             | [{'op':'remove','path':'/b'}]
            {'a':null}        | {'a':3}             | [{'op':'add','path':'/a','value':3}]
            {'a':3}           | {'a':null}          | [{'op':'replace','path':'/a','value':null}]
            {'a':true}        | {'a':false}         | [{'op':'replace','path':'/a','value':false}]
            {'a':'1'}         | {'a':1}             | [{'op':'replace','path':'/a','value':1}]
            {'a':{'x':1}}     | {'a':[1]}           | [{'op':'replace','path':'/a','value':[1]}]
            {'a/b':{'~':1}}   | {'a/b':{'~':2}}     | [{'op':'replace','path':'/a~1b/~0','value':2}]
            {'a':[1,2,3]}     | {'a':[1,3]}         | [{'op':'remove','path':'/a/1'}]
            {'a':[1,2]}       | {'a':[1,2,3]}       | [{'op':'add','path':'/a/2','value':3}]
            {'a':[1,2]}       | {'a':[0,1,2]}       | [{'op':'add','path':'/a/0','value':0}]
            {'a':[1,2]}       | {'a':[1,5]}         | [{'op':'replace','path':'/a/1','value':5}]
            {'a':[{'x':1},{'x':2}]} | {'a':[{'x':1}]}      | [{'op':'remove','path':'/a/1'}]
            {'a':[{'x':1}]}   | {'a':[{'x':2},{'y':1}]}    | [{'op':'add','path':'/a/1','value':{'y':1}},{'op':'replace','path':'/a/0/x','value':2}]
            """)
    void diffsLikeKubeMod(String from, String to, String expected) {
        assertThat(JsonDiff.toJson(JsonDiff.diff(json(from), json(to))), equalTo(json(expected)));
    }

    /** Applying the diff to the source gives the target: the patch is valid in order. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {'a':[1,2,3,4,5]}       | {'a':[5,4,3,2,1]}
            {'a':[1,2,3]}           | {'a':[]}
            {'a':[]}                | {'a':['x','y']}
            {'a':['a','b','c','d']} | {'a':['b','x','d','e','f']}
            {'a':[{'x':1},2,[3]]}   | {'a':[[3],{'x':2}]}
            """)
    void diffReproducesTarget(String from, String to) throws Exception {
        var patch = JsonDiff.diff(json(from), json(to));
        assertThat(JsonPatcher.apply(json(from), patch), equalTo(json(to)));
    }

    /** Lists too long for an edit-distance table are compared index by index, still giving a valid patch. */
    @Test
    void longListsAreDiffedWithoutAQuadraticTable() throws Exception {
        var from = Json.PROVIDER.createArrayBuilder();
        var to = Json.PROVIDER.createArrayBuilder();
        for (int i = 0; i < 5000; i++) {
            from.add(i);
            to.add(i == 10 ? -1 : i);
        }
        to.add(5000);
        JsonValue a = Json.PROVIDER.createObjectBuilder().add("a", from).build();
        JsonValue b = Json.PROVIDER.createObjectBuilder().add("a", to).build();
        var patch = JsonDiff.diff(a, b);
        assertThat(JsonDiff.toJson(patch), equalTo(json(
                "[{'op':'add','path':'/a/5000','value':5000},{'op':'replace','path':'/a/10','value':-1}]")));
        assertThat(JsonPatcher.apply(a, patch), equalTo(b));
    }

    /**
     * A value where a list of objects held null replaces it: an add would insert before the null (found by
     * JsonPatcherFuzzTest; its input is kept in JsonPatcherFuzzTestInputs).
     */
    @Test
    void aValueInPlaceOfANullListItemIsAReplace() throws Exception {
        JsonValue from = json("[1, [2, 3], {'a': []}, null]");
        JsonValue to = json("[1, 1, [2, 3], {'a': []}, null]");
        var patch = JsonDiff.diff(from, to);
        assertThat(JsonDiff.toJson(patch), equalTo(json("[{'op':'add','path':'/4','value':null},"
                + "{'op':'replace','path':'/1','value':1},{'op':'replace','path':'/2','value':[2,3]},"
                + "{'op':'replace','path':'/3','value':{'a':[]}}]")));
        assertThat(JsonPatcher.apply(from, patch), equalTo(to));
    }
}
