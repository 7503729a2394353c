package io.remold.installer;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command line entry point: writes the installation bundle (a multi-document YAML stream) to standard output.
 * Exit codes: 0 done, 1 the chart could not be written, 2 invalid options.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        int code = run(args, out, System.err);
        out.flush();
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the installer; returns the process exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        InstallOptions options;
        var rest = new ArrayList<>(List.of(args));
        Path chart = null;
        try {
            // a mode, not an install option: the chart's values default to the options given with it
            int at = rest.indexOf("--helm-chart");
            if (at >= 0) {
                if (at + 1 >= rest.size()) {
                    throw new UsageException("option --helm-chart needs a value");
                }
                chart = Path.of(rest.remove(at + 1));
                rest.remove(at);
            }
            options = InstallOptions.parse(rest);
        } catch (UsageException e) {
            err.println("remold-installer: " + e.getMessage());
            err.println("Run with --help for the list of options.");
            return 2;
        }
        if (options.help()) {
            out.print(InstallOptions.USAGE);
            return 0;
        }
        if (chart != null) {
            try {
                HelmChart.write(chart, options);
            } catch (IOException | UncheckedIOException e) {
                err.println("remold-installer: cannot write the chart into " + chart + ": " + e.getMessage());
                return 1;
            }
            return 0;
        }
        out.print(BundleYaml.write(new Bundle(options).objects()));
        if (options.inCluster() && options.openIngress()) {
            err.println("remold-installer: the NetworkPolicy remold-webhook admits the webhook port from any address:"
                    + " pass --webhook-ingress-cidr with your API server's addresses (docs/install.md lists them"
                    + " per platform)");
        }
        return 0;
    }
}
