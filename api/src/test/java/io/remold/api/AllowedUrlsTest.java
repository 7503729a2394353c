package io.remold.api;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Which URLs the administrator's prefixes let a kinitiras http reference reach, on the parsed URL. */
class AllowedUrlsTest {
    private static final AllowedUrls ALLOWED = AllowedUrls.parse(List.of("http://svc.ns", "https://rates.fin:8443/api/",
            "http://10.0.0.7:8080/v1/q"));

    /** URL, then the prefix that covers it, or - and (part of) why it is refused. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            http://svc.ns                          | http://svc.ns
            http://svc.ns/                         | http://svc.ns
            http://SVC.NS:80/any/path?q=1#f        | http://svc.ns
            HTTP://svc.ns/x                        | http://svc.ns
            http://svc.ns.evil.com/                | - not under a URL prefix
            http://svc.ns@evil/                    | - user info
            http://evil@svc.ns/                    | - user info
            http://svc.ns:8080/                    | - not under a URL prefix
            https://svc.ns/                        | - not under a URL prefix
            http://svc.ns./                        | - not under a URL prefix
            http://svc.nsx/                        | - not under a URL prefix
            ftp://svc.ns/                          | - not an http or https URL
            https://rates.fin:8443/api             | https://rates.fin:8443/api/
            https://rates.fin:8443/api/            | https://rates.fin:8443/api/
            https://rates.fin:8443/api/eur?d=1     | https://rates.fin:8443/api/
            https://rates.fin:8443/apix            | - not under a URL prefix
            https://rates.fin:8443/ap              | - not under a URL prefix
            https://rates.fin:8443/                | - not under a URL prefix
            https://rates.fin/api/eur              | - not under a URL prefix
            https://rates.fin:8443/api/../admin    | - dot segment
            https://rates.fin:8443/api/./x         | - dot segment
            https://rates.fin:8443/api/%2e%2e/adm  | - dot segment
            https://rates.fin:8443/api/%2E%2E/adm  | - dot segment
            https://rates.fin:8443/api/..;/adm     | - dot segment
            https://rates.fin:8443/api%2f..%2fadm  | - encoded slash
            https://rates.fin:8443/api/%5c..%5cadm | - encoded slash
            https://rates.fin:8443/API/eur         | - not under a URL prefix
            http://10.0.0.7:8080/v1/q/7            | http://10.0.0.7:8080/v1/q
            http://10.0.0.7:8080/v1/qq             | - not under a URL prefix
            http://10.0.0.7/v1/q                   | - not under a URL prefix
            http://under_score/                    | - no host name
            """)
    void aUrlIsUnderAPrefixOnlyWhenParsedSchemeHostPortAndPathSegmentsAgree(String url, String expected) {
        URI uri = URI.create(url);
        Optional<String> refusal = ALLOWED.refusal(uri);
        if (expected.startsWith("- ")) {
            assertThat(refusal.orElse("allowed"), containsString(expected.substring(2)));
            assertThat(ALLOWED.prefixOf(uri), is(Optional.empty()));
        } else {
            assertThat(refusal, is(Optional.empty()));
            assertThat(ALLOWED.prefixOf(uri), is(Optional.of(expected)));
        }
    }

    /**
     * A reference's URL as written: a literal is checked whole, a template by its part before the first key when that
     * holds the host; what only a request can tell is left to it (empty).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            http://svc.ns/config                          | in force
            http://evil.com/config                        | not under a URL prefix
            http://svc.ns/{{metadata.name}}               | in force
            http://svc.ns.evil.com/{{metadata.name}}      | not under a URL prefix
            http://svc.ns@evil/{{metadata.name}}          | user info
            http://{{metadata.labels.host}}/x             | in force
            http://svc.{{metadata.namespace}}/x           | in force
            https://rates.fin:8443/ap{{metadata.name}}    | in force
            https://rates.fin:8443/apx/{{metadata.name}}  | not under a URL prefix
            https://rates.fin:8443/api/{{metadata.name}}  | in force
            https://rates.fin:8443/other?{{x}}            | not under a URL prefix
            https://rates.fin:8443/api?{{x}}              | in force
            {{metadata.annotations.url}}                  | in force
            http://svc.ns/a b                             | not a URL
            """)
    void aWrittenUrlIsRefusedBeforeAnyRequestOnlyWhenNoCompletionCanBeAllowed(String url, String expected) {
        Optional<String> refusal = ALLOWED.refusalOfWritten(url);
        if (expected.equals("in force")) {
            assertThat(refusal, is(Optional.empty()));
        } else {
            assertThat(refusal.orElse("in force"), containsString(expected));
        }
    }

    @Test
    void noPrefixRefusesEveryUrlAndAnyAllowsEvery() {
        assertThat(AllowedUrls.parse(List.of()), is(AllowedUrls.NONE));
        assertThat(AllowedUrls.NONE.refusal(URI.create("http://svc.ns/")), is(Optional.of(AllowedUrls.NONE_ALLOWED)));
        assertThat(AllowedUrls.NONE.refusalOfWritten("http://{{x}}/"), is(Optional.of(AllowedUrls.NONE_ALLOWED)));
        assertThat(AllowedUrls.ANY.refusal(URI.create("http://anything/")), is(Optional.empty()));
        assertThat(AllowedUrls.ANY.refusalOfWritten("http://anything/"), is(Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            svc.ns                      | not an http or https URL
            file:///etc                 | not an http or https URL
            http://user@svc.ns          | user info
            http://svc.ns/api?x=1       | has a query or fragment
            http://svc.ns/api/../x      | dot segment
            http://svc.ns/a b           | is not a URL
            """)
    void aPrefixThatIsNotAPlainHttpUrlIsRefusedNamingIt(String prefix, String why) {
        var e = assertThrows(IllegalArgumentException.class, () -> AllowedUrls.parse(List.of(prefix)));
        assertThat(e.getMessage(), containsString("--allow-http-ref " + prefix + ": "));
        assertThat(e.getMessage(), containsString(why));
    }
}
