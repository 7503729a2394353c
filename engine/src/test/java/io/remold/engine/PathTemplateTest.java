package io.remold.engine;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

class PathTemplateTest {

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = '|', textBlock = """
            /a/b          | ''       | /a/b
            /#0           | ''       | /#(BADINDEX)
            /#0/#1        | x,3      | /x/3
            /#1/#0/#1     | x,y      | /y/x/y
            /#10/#1       | x,y      | /#(BADINDEX)/y
            /#hello       | x        | /#hello
            /#1hello      | a,b      | /bhello
            /labels/#0    | a/b~c    | /labels/a~1b~0c
            /x#           | a        | /x#
            """)
    void rendersCaptures(String template, String captures, String expected) {
        List<Object> parts = captures.isEmpty() ? List.of() : Arrays.asList((Object[]) captures.split(","));
        assertThat(PathTemplate.parse(template).render(parts), equalTo(expected));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /a/b        | -1
            /#0         | 0
            /#2/x/#1    | 2
            /#hello     | -1
            """)
    void knowsHighestPlaceholder(String template, int highest) {
        assertThat(PathTemplate.parse(template).highestPlaceholder(), equalTo(highest));
    }
}
