package io.remold.installer;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Command line entry point: writes the installation bundle (a multi-document YAML stream) to standard output.
 * Exit codes: 0 done, 2 invalid options.
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
        try {
            options = InstallOptions.parse(List.of(args));
        } catch (UsageException e) {
            err.println("remold-installer: " + e.getMessage());
            err.println("Run with --help for the list of options.");
            return 2;
        }
        if (options.help()) {
            out.print(InstallOptions.USAGE);
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
