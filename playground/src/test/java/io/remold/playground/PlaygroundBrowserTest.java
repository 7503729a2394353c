package io.remold.playground;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.stringContainsInOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/**
 * The page in a real browser (Debian's chromium, headless, driven through its chromedriver by Selenium): the main
 * flows and bad input, one browser for all, a screenshot of each in target/playground-screenshots.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlaygroundBrowserTest {
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOTS = Path.of(System.getProperty("playground.screenshots",
            "target/playground-screenshots"));
    /** Long enough for a cold JVM's first script rule; a wait ends as soon as its condition holds. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Playground playground;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        if (!Files.isExecutable(CHROMEDRIVER) || !Files.isExecutable(CHROMIUM)) {
            throw new IllegalStateException("the browser test needs " + CHROMIUM + " and " + CHROMEDRIVER
                    + ": on Debian, apt-get install chromium chromium-driver");
        }
        Files.createDirectories(SCREENSHOTS);
        playground = Playground.start("127.0.0.1", 0, Examples.packaged());
        browser = browser();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (playground != null) {
            playground.close();
        }
    }

    static WebDriver browser() throws IOException {
        var options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // without the networking flags, Chromium keeps trying its own services and floods refused connections
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1500,1100",
                "--user-data-dir=" + Files.createTempDirectory("playground-chromium-"));
        var service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static String url() {
        return "http://127.0.0.1:" + playground.port() + "/";
    }

    @Test
    @Order(1)
    void anExampleLoadsAndShowsTheResultPatchAndDiff() throws IOException {
        open(browser, url());
        example("kubemod-readme/add-flavor-label");
        waitFor(browser, "verdict", "Allowed, patched with 1 operation");
        assertThat(text("result"), containsString("flavor: vanilla"));
        tab("patch");
        assertThat(text("patch"), containsString("\"path\":\"/metadata/labels/flavor\""));
        tab("diff");
        assertThat(browser.findElement(By.cssSelector("#diff .add")).getText(), containsString("flavor: vanilla"));
        tab("explain");
        assertThat(text("explain"), containsString("Patch rules:"));
        // why the field changed: the rule, and the match items that held with what they selected
        assertThat(text("explain"), stringContainsInOrder("Fields changed", "add /metadata/labels/flavor",
                "ModRule remold-system/add-flavor-modrule",
                "spec.match[1] ($.syntheticRefs.namespace.metadata.labels.color) matchValue \"blue\": selected \"blue\""));
        screenshot("01-example-explain");
        tab("result");
        screenshot("02-example-result");
    }

    @Test
    @Order(2)
    void invalidYamlIsShownAtItsLineAndColumn() throws IOException {
        WebElement rules = browser.findElement(By.id("rules"));
        rules.clear();
        // typed: the page evaluates on its own once typing pauses
        rules.sendKeys("apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata:\n  name: x\n   bad: [\n");
        WebElement error = new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#rules-errors li")));
        assertThat(error.getText(), startsWith("rules.yaml: document 1 (line 5, column 7): invalid YAML"));
        assertThat(browser.findElement(By.cssSelector("[data-editor=rules] .gutter .bad")).getText(), equalTo("5"));
        assertThat(text("verdict"), startsWith("Input error"));
        screenshot("03-invalid-yaml");
    }

    @Test
    @Order(3)
    void aRejectionIsShown() throws IOException {
        example("kubemod-readme/reject-external-ips");
        waitFor(browser, "verdict", "Rejected: operation rejected by the following ModRule(s): "
                + "shop/reject-malicious-external-ips");
        assertThat(text("result"), equalTo("(rejected: no object)"));
        screenshot("04-rejected");
    }

    @Test
    @Order(4)
    void aSharedUrlRestoresTheCaseInAnotherBrowser() throws IOException {
        example("kubemod-readme/add-flavor-label");
        waitFor(browser, "verdict", "Allowed, patched");
        setValue(browser, "resource", text("resource").replace("app: scoop", "app: shared-scoop"));
        browser.findElement(By.id("evaluate")).click();
        waitFor(browser, "result", "app: shared-scoop");
        browser.findElement(By.id("share")).click();
        new WebDriverWait(browser, WAIT).until(d -> !d.findElement(By.id("share-url")).getDomProperty("value")
                .isEmpty());
        String shared = browser.findElement(By.id("share-url")).getDomProperty("value");
        assertThat(shared, startsWith(url() + "#z="));
        WebDriver other = browser();
        try {
            open(other, shared);
            waitFor(other, "result", "app: shared-scoop");
            assertThat(other.findElement(By.id("rules")).getDomProperty("value"), equalTo(text("rules")));
            assertThat(other.findElement(By.id("namespaceRef")).getDomProperty("value"),
                    equalTo(browser.findElement(By.id("namespaceRef")).getDomProperty("value")));
            assertThat(other.findElement(By.id("verdict")).getText(), equalTo(text("verdict")));
            Files.write(SCREENSHOTS.resolve("05-shared-restored.png"),
                    ((ChromeDriver) other).getScreenshotAs(OutputType.BYTES));
        } finally {
            other.quit();
        }
    }

    @Test
    @Order(5)
    void aHugeDocumentGetsAClearErrorAndThePageStaysUsable() throws IOException {
        setValue(browser, "resource", "kind: Pod\nmetadata:\n  name: big\ndata: '" + "x".repeat(2 << 20) + "'\n");
        browser.findElement(By.id("evaluate")).click();
        waitFor(browser, "problem", "the playground takes at most 1048576 (1 MiB)");
        screenshot("06-huge-document");
        // still answering: a document just under the cap is evaluated
        setValue(browser, "rules", "");
        setValue(browser, "resource", "kind: ConfigMap\nmetadata:\n  name: big\ndata:\n"
                + "  k: '" + "x".repeat(900_000) + "'\n");
        browser.findElement(By.id("evaluate")).click();
        waitFor(browser, "verdict", "Allowed, unchanged");
    }

    @Test
    @Order(6)
    void aLoopingScriptGivesAnErrorThenANormalEvaluationWorks() throws IOException {
        setValue(browser, "rules", PlaygroundApiTest.LOOPING_SCRIPT);
        setValue(browser, "resource", PlaygroundApiTest.POD);
        browser.findElement(By.id("evaluate")).click();
        waitFor(browser, "warning-count", "(1)");
        tab("warnings");
        assertThat(text("warnings"), containsString("loops failed"));
        screenshot("07-looping-script");
        example("kubemod-readme/add-flavor-label");
        waitFor(browser, "verdict", "Allowed, patched with 1 operation");
        screenshot("08-after-the-loop");
        assertThat(Files.size(SCREENSHOTS.resolve("01-example-explain.png")), greaterThan(10_000L));
    }

    private static void example(String id) {
        new Select(browser.findElement(By.id("example"))).selectByValue(id);
    }

    private static void open(WebDriver driver, String address) {
        driver.get(address);
        new WebDriverWait(driver, WAIT).until(d -> "true".equals(d.findElement(By.tagName("body"))
                .getDomAttribute("data-ready")));
    }

    private static void waitFor(WebDriver driver, String id, String text) {
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id(id), text));
    }

    /** A large text set at once (typing megabytes key by key takes minutes), announced as typing would be. */
    private static void setValue(WebDriver driver, String id, String value) {
        ((JavascriptExecutor) driver).executeScript("const e = document.getElementById(arguments[0]);"
                + " e.value = arguments[1]; e.dispatchEvent(new Event('input'));", id, value);
    }

    private static String text(String id) {
        WebElement element = browser.findElement(By.id(id));
        return element.getTagName().equals("textarea") ? element.getDomProperty("value")
                : element.getAttribute("textContent");
    }

    private static void tab(String name) {
        browser.findElement(By.cssSelector(".tabs button[data-tab=" + name + "]")).click();
        assertThat(browser.findElement(By.id(name)).isDisplayed(), is(true));
    }

    private static void screenshot(String name) throws IOException {
        byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(SCREENSHOTS.resolve(name + ".png"), png);
    }
}
