package io.remold.gatekeeper.mutators;

import io.remold.templating.ImageReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** AssignImage's image parser and parameter checks, beyond the corpus. */
class ImageParametersTest {

    @ParameterizedTest(name = "{0} with domain {1}, path {2}, tag {3} gives {4}")
    @CsvSource(delimiter = '|', nullValues = "-", emptyValue = "", textBlock = """
            ''                    | ''         | lib/app | :v1 | lib/app:v1
            localhost/app         | r.io       | ''      | ''  | r.io/app
            localhost:5000/app@x  | ''         | ''      | :v2 | localhost:5000/app:v2
            ubuntu                | r.io:5000  | ''      | ''  | r.io:5000/ubuntu
            a.b/c:1@sha           | ''         | x/y     | ''  | a.b/x/y:1@sha
            host/app              | r.io       | ''      | ''  | r.io/host/app
            """)
    void replacesOnlyTheAssignedParts(String image, String domain, String path, String tag, String expected) {
        ImageReference assigned = ImageParameters.validated(domain, path, tag);
        assertEquals(expected, ImageReference.split(image).replacedBy(assigned).text());
    }

    @ParameterizedTest(name = "{0}/{1}/{2} is refused at {3}")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            ''            | ''       | ''       | spec.parameters
            Foo.io        | ''       | ''       | -
            a.b           | Lib/app  | ''       | spec.parameters.assignPath
            a.b           | lib___x  | ''       | spec.parameters.assignPath
            ''            | ''       | :-x      | spec.parameters.assignTag
            ''            | localhost/app | ''  | spec.parameters.assignPath
            """)
    void refusesParameters(String domain, String path, String tag, String field) {
        if (field.equals("-")) {
            ImageParameters.validated(domain, path, tag); // upper case is fine in a domain
            return;
        }
        var e = assertThrows(InvalidMutatorException.class, () -> ImageParameters.validated(domain, path, tag));
        assertEquals(field, e.field());
    }

    @Test
    void tagsHoldAtMost128CharactersAfterTheColon() {
        ImageParameters.validated("", "", ":" + "a".repeat(128));
        var e = assertThrows(InvalidMutatorException.class,
                () -> ImageParameters.validated("", "", ":" + "a".repeat(129)));
        assertEquals("spec.parameters.assignTag", e.field());
    }
}
