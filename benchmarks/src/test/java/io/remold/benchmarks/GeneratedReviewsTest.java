package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.in;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import jakarta.json.JsonObject;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A seed gives the same reviews every time, and the reviews vary in what the mutators look at. */
class GeneratedReviewsTest {
    @Test
    void theSameSeedGivesTheSameReviewsAndAnotherSeedOthers() {
        assertThat(GeneratedReviews.reviews(42, 300), is(GeneratedReviews.reviews(42, 300)));
        assertThat(GeneratedReviews.reviews(42, 300).subList(0, 10), is(GeneratedReviews.reviews(42, 10)));
        assertThat(objects(GeneratedReviews.reviews(43, 300)), not(objects(GeneratedReviews.reviews(42, 300))));
    }

    @Test
    void reviewsVaryInKindNamespaceOperationAndContainers() {
        List<JsonObject> requests = GeneratedReviews.reviews(1, 300).stream().map(r -> r.getJsonObject("request"))
            .toList();
        var kinds = new HashSet<>();
        var namespaces = new HashSet<String>();
        var operations = new HashSet<>();
        var images = new HashSet<>();
        int withoutName = 0;
        for (JsonObject request : requests) {
            JsonObject object = request.getJsonObject("object");
            kinds.add(object.getString("kind"));
            namespaces.add(request.getString("namespace"));
            operations.add(request.getString("operation"));
            JsonObject spec = object.getString("kind").equals("Pod") ? object.getJsonObject("spec")
                : object.getJsonObject("spec").getJsonObject("template").getJsonObject("spec");
            spec.getJsonArray("containers").forEach(c -> images.add(c.asJsonObject().getString("image")));
            withoutName += object.getJsonObject("metadata").containsKey("name") ? 0 : 1;
        }
        assertThat(kinds.size(), is(2));
        assertThat(namespaces, everyItem(is(in(GeneratedReviews.NAMESPACES))));
        assertThat(namespaces.size(), is(GeneratedReviews.NAMESPACES.size()));
        assertThat(operations.size(), is(2));
        assertThat(images.size(), greaterThan(5));
        assertThat(withoutName, greaterThan(0));
    }

    private static List<JsonObject> objects(List<JsonObject> reviews) {
        return reviews.stream().map(r -> r.getJsonObject("request").getJsonObject("object")).toList();
    }
}
