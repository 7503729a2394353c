package io.remold.engine;

import io.remold.api.PatchOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonPatcherTest {

    @ParameterizedTest(name = "{1} {2} on {0}")
    @CsvSource(delimiter = '|', textBlock = """
            {'a':1}                 | add     | /b          | 2      | {'a':1,'b':2}
            {'a':1}                 | add     | /a          | 2      | {'a':2}
            {'a':1}                 | replace | /a          | 2      | {'a':2}
            {'a':1}                 | remove  | /a          |        | {}
            {'a':1}                 | remove  | /x          |        | {'a':1}
            {'a':1}                 | remove  | /x/y/z      |        | {'a':1}
            {'a':[1]}               | remove  | /a/5        |        | {'a':[1]}
            {'a':[1]}               | remove  | /a/x        |        | {'a':[1]}
            {'a':'s'}               | remove  | /a/x        |        | {'a':'s'}
            {}                      | add     | /a/b/c      | 1      | {'a':{'b':{'c':1}}}
            {}                      | add     | /a/0        | 1      | {'a':[1]}
            {}                      | add     | /a/-        | 1      | {'a':[1]}
            {}                      | add     | /a/-1       | 1      | {'a':[1]}
            {}                      | add     | /a/2/b      | 1      | {'a':[null,null,{'b':1}]}
            {'a':[]}                | add     | /a/0/b      | 1      | {'a':[{'b':1}]}
            {'a':[7]}               | add     | /a/3/b      | 1      | {'a':[7,null,null,{'b':1}]}
            {'a':[1,2,3]}           | add     | /a/-1       | 9      | {'a':[1,2,3,9]}
            {'a':[1,2,3]}           | add     | /a/-2       | 9      | {'a':[1,2,9,3]}
            {'a':[1,2,3]}           | add     | /a/-4       | 9      | {'a':[9,1,2,3]}
            {'a':[1,2,3]}           | add     | /a/-        | 9      | {'a':[1,2,3,9]}
            {'a':[1,2,3]}           | add     | /a/1        | 9      | {'a':[1,9,2,3]}
            {'a':[1,2,3]}           | add     | /a/3        | 9      | {'a':[1,2,3,9]}
            {'a':[1,2,3]}           | replace | /a/-1       | 9      | {'a':[1,2,9]}
            {'a':[1,2,3]}           | replace | /a/-3       | 9      | {'a':[9,2,3]}
            {'a':[1,2,3]}           | remove  | /a/-1       |        | {'a':[1,2]}
            {'a':[1,2,3]}           | remove  | /a/0        |        | {'a':[2,3]}
            {'a':[{'b':1},{'b':2}]} | replace | /a/-1/b     | 9      | {'a':[{'b':1},{'b':9}]}
            {'a/b':{'~c':1}}        | replace | /a~1b/~0c   | 2      | {'a/b':{'~c':2}}
            {'a':1}                 | add     | ''          | [1]    | [1]
            {'a':1}                 | replace | ''          | 7      | 7
            """)
    void appliesOperations(String document, PatchOp op, String path, String value, String expected) throws Exception {
        var operation = new JsonPatcher.Operation(op, path, value == null ? null : json(value));
        assertThat(JsonPatcher.apply(json(document), List.of(operation)), equalTo(json(expected)));
    }

    @ParameterizedTest(name = "{1} {2} on {0} fails")
    @CsvSource(delimiter = '|', textBlock = """
            {'a':1}       | replace | /x          | replace: missing key "x" at /
            {'a':{}}      | replace | /a/x/y      | replace: missing key "x" at /a
            {'a':[1]}     | replace | /a/1        | replace: index 1 out of range for the list at /a (size 1)
            {'a':[1]}     | replace | /a/-2       | replace: index -2 out of range
            {'a':[1]}     | add     | /a/3        | add: index 3 out of range for the list at /a (size 1)
            {'a':[1]}     | add     | /a/-3       | add: index -3 out of range
            {'a':[1]}     | add     | /a/x        | add: "x" is not an index of the list at /a
            {'a':[1]}     | add     | /a/99999999999 | add: "99999999999" is not an index of the list at /a
            {'a':'s'}     | add     | /a/b        | add: /a is a string, not an object or list
            {'a':1}       | remove  | ''          | cannot remove the whole document
            {'a':1}       | add     | a           | path "a" does not start with /
            {'a':[1]}     | add     | /a/10002/b  | add: index 10002 is 10001 past the end of the list at /a (at most 10000)
            {'a':{}}      | add     | /a/b/10001/c | add: index 10001 is 10001 past the end of the list at /a/b (at most 10000)
            """)
    void reportsFailures(String document, PatchOp op, String path, String message) {
        var operation = new JsonPatcher.Operation(op, path, op == PatchOp.remove ? null : json("1"));
        var e = assertThrows(JsonPatcher.PatchException.class,
                () -> JsonPatcher.apply(json(document), List.of(operation)));
        assertThat(e.getMessage(), containsString(message));
    }

    @ParameterizedTest(name = "{1} {2} {3} on {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            {'c':[{'n':'a','i':1},{'n':'b'}]}     | add     | /c/[n=b]/i      | 2                | {'c':[{'n':'a','i':1},{'n':'b','i':2}]}
            {'c':[{'n':'a'},{'n':'a'}]}           | add     | /c/[n=a]/i      | 2                | {'c':[{'n':'a','i':2},{'n':'a','i':2}]}
            {'c':[{'n':'a'}]}                     | add     | /c/[n=z]/i      | 2                | {'c':[{'n':'a'},{'n':'z','i':2}]}
            {}                                    | add     | /s/c/[n=z]/i    | 2                | {'s':{'c':[{'n':'z','i':2}]}}
            {'c':[{'p':80},{'p':'80'}]}           | add     | /c/[p=80]/x     | 1                | {'c':[{'p':80,'x':1},{'p':'80'}]}
            {'c':[{'p':80},{'p':'80'}]}           | add     | /c/[p="80"]/x   | 1                | {'c':[{'p':80},{'p':'80','x':1}]}
            {'c':[{'p':80.0}]}                    | add     | /c/[p=80]/x     | 1                | {'c':[{'p':80.0,'x':1}]}
            {'c':[1,'n',{'n':'a'}]}               | add     | /c/[n=a]/x      | 1                | {'c':[1,'n',{'n':'a','x':1}]}
            {'c':[{'n':'a','i':1}]}               | replace | /c/[n=a]/i      | 2                | {'c':[{'n':'a','i':2}]}
            {'c':[{'n':'a','i':1}]}               | remove  | /c/[n=a]/i      |                  | {'c':[{'n':'a'}]}
            {'c':[{'n':'a','i':1}]}               | remove  | /c/[n=z]/i      |                  | {'c':[{'n':'a','i':1}]}
            {'c':[{'n':'a'},{'n':'b'},{'n':'a'}]} | remove  | /c/[n=a]        |                  | {'c':[{'n':'b'}]}
            {'c':[{'n':'a','i':1},{'n':'a'}]}     | add     | /c/[n=a]        | {'n':'a','i':9}  | {'c':[{'n':'a','i':9},{'n':'a'}]}
            {'c':[{'n':'b'}]}                     | add     | /c/[n=a]        | {'n':'a','i':9}  | {'c':[{'n':'b'},{'n':'a','i':9}]}
            {'c':[{'n':'a','i':1}]}               | replace | /c/[n=a]        | {'n':'a'}        | {'c':[{'n':'a'}]}
            {'[n=a]':{'i':1}}                     | add     | /[n=a]/i        | 2                | {'[n=a]':{'i':2}}
            {'a':['x','y','x','z']}               | remove  | /a              | 'x'              | {'a':['y','z']}
            {'a':[1,1.0,'1',2]}                   | remove  | /a              | 1                | {'a':['1',2]}
            {'a':[{'k':[1]},{'k':[2]}]}           | remove  | /a              | {'k':[2]}        | {'a':[{'k':[1]}]}
            {'a':['x']}                           | remove  | /a              | 'q'              | {'a':['x']}
            {}                                    | remove  | /a              | 'x'              | {}
            {'m':[['x','y']]}                     | remove  | /m/0            | 'y'              | {'m':[['x']]}
            {'c':[{'n':'a','g':['x','y']}]}       | remove  | /c/[n=a]/g      | 'x'              | {'c':[{'n':'a','g':['y']}]}
            """)
    void appliesKeyedStepsAndRemovesByValue(String document, PatchOp op, String path, String value, String expected)
            throws Exception {
        var operation = new JsonPatcher.Operation(op, path, value == null ? null : json(value));
        assertThat(JsonPatcher.apply(json(document), List.of(operation)), equalTo(json(expected)));
    }

    @ParameterizedTest(name = "{1} {2} {3} on {0} fails")
    @CsvSource(delimiter = '|', textBlock = """
            {'c':[{'n':'a'}]}  | replace | /c/[n=z]/i | 1          | replace: no element with n="z" in the list at /c
            {'c':[{'n':'a'}]}  | replace | /c/[n=z]   | {'n':'z'}  | replace: no element with n="z" in the list at /c
            {'c':[{'n':'a'}]}  | add     | /c/[n=a]   | {'n':'b'}  | add: the value for /c/[n=a] must be an object with the same key, n="a"
            {'c':[]}           | add     | /c/[n=a]   | 1          | must be an object with the same key
            {'c':[{'n':'a'}]}  | remove  | /c/[n=a]   | 1          | remove: a value removes items of a list, and /c/[n=a] is an element
            {'a':{'b':1}}      | remove  | /a         | 1          | remove: a value removes items of a list, and /a is not a list but object
            """)
    void reportsKeyedAndRemoveByValueFailures(String document, PatchOp op, String path, String value, String message) {
        var operation = new JsonPatcher.Operation(op, path, json(value));
        var e = assertThrows(JsonPatcher.PatchException.class,
                () -> JsonPatcher.apply(json(document), List.of(operation)));
        assertThat(e.getMessage(), containsString(message));
    }
}
