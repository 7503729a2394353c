package io.remold.certgen;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.File;
import java.io.FileReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;

/**
 * Command line entry point of the certificate job. Exit codes: 0 done (or nothing to do), 1 the API server refused or
 * failed a call, 2 invalid options or kubeconfig.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs certgen; returns the process exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CertgenOptions options;
        try {
            options = CertgenOptions.parse(List.of(args));
        } catch (UsageException e) {
            err.println("remold-certgen: " + e.getMessage());
            err.println("Run with --help for the list of options.");
            return 2;
        }
        if (options.help()) {
            out.print(CertgenOptions.USAGE);
            return 0;
        }
        ApiClient client;
        try {
            client = options.kubeconfig() == null ? ClientBuilder.standard().build()
                    : ClientBuilder.kubeconfig(loadKubeConfig(options.kubeconfig())).build();
        } catch (IOException | RuntimeException e) {
            err.println("remold-certgen: cannot configure the API client"
                    + (options.kubeconfig() == null ? "" : " from " + options.kubeconfig()) + ": " + e.getMessage());
            return 2;
        }
        try {
            var certgen = new Certgen(options, client, Clock.systemUTC(), out);
            if (options.deleteWebhooks()) {
                certgen.deleteWebhooks();
            } else {
                certgen.run();
            }
            return 0;
        } catch (Certgen.ApiFailure e) {
            err.println("remold-certgen: " + e.getMessage());
            return 1;
        }
    }

    private static KubeConfig loadKubeConfig(String file) throws IOException {
        try (var reader = new FileReader(file, StandardCharsets.UTF_8)) {
            KubeConfig config = KubeConfig.loadKubeConfig(reader);
            config.setFile(new File(file));
            return config;
        }
    }
}
