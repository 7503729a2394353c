package io.remold.certgen;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * certgen's options.
 *
 * @param kubeconfig kubeconfig file, or null for the standard lookup (KUBECONFIG, ~/.kube/config, in-cluster)
 */
record CertgenOptions(
        String namespace,
        String secret,
        String service,
        String mutatingWebhook,
        String validatingWebhook,
        Duration validity,
        Duration renewBefore,
        boolean renewNow,
        boolean deleteWebhooks,
        String kubeconfig,
        boolean help) {

    static final String USAGE = """
            Usage: java -jar remold-certgen.jar [options]
            Creates or renews Remold's webhook serving certificate and its CA, stores them in a Secret
            (tls.crt, tls.key, ca.crt) and puts the CA bundle into every webhook of both webhook configurations.
            Writes nothing when everything is current.

              --namespace NAME            namespace of the Service and the Secret (default remold-system)
              --secret NAME               TLS Secret (default remold-tls)
              --service NAME              Service the certificate is for (default remold)
              --mutating-webhook NAME     MutatingWebhookConfiguration (default remold-mutating)
              --validating-webhook NAME   ValidatingWebhookConfiguration (default remold-validating)
              --validity DURATION         lifetime of new certificates, e.g. 365d, 8760h (default 365d)
              --renew-before DURATION     renew when less than this is left (default 30d)
              --renew-now                 renew a current certificate too (a rotation that fails no request:
                                          the previous CA stays trusted until the servers have reloaded)
              --delete-webhooks           delete both webhook configurations and nothing else (Helm's
                                          pre-delete hook: the API server stops calling Remold before
                                          its server goes)
              --kubeconfig FILE           kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)
              --help                      this text
            Exit codes: 0 done, 1 the API server refused or failed, 2 invalid options.
            """;

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final Pattern DURATION = Pattern.compile("([0-9]{1,6})([dhms])");

    static CertgenOptions parse(List<String> args) throws UsageException {
        String namespace = "remold-system", secret = "remold-tls", service = "remold", mutating = "remold-mutating",
                validating = "remold-validating", kubeconfig = null;
        Duration validity = Duration.ofDays(365), renewBefore = Duration.ofDays(30);
        boolean help = false, renewNow = false, deleteWebhooks = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("--help") || name.equals("-h")) {
                help = true;
                continue;
            }
            if (arg.equals("--renew-now")) {
                renewNow = true;
                continue;
            }
            if (arg.equals("--delete-webhooks")) {
                deleteWebhooks = true;
                continue;
            }
            if (!List.of("--namespace", "--secret", "--service", "--mutating-webhook", "--validating-webhook",
                    "--validity", "--renew-before", "--kubeconfig").contains(name)) {
                throw new UsageException("unknown option " + arg);
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("option " + name + " needs a value");
                }
                value = args.get(++i);
            }
            switch (name) {
                case "--namespace" -> namespace = objectName(name, value);
                case "--secret" -> secret = objectName(name, value);
                case "--service" -> service = objectName(name, value);
                case "--mutating-webhook" -> mutating = objectName(name, value);
                case "--validating-webhook" -> validating = objectName(name, value);
                case "--validity" -> validity = duration(name, value);
                case "--renew-before" -> renewBefore = duration(name, value);
                case "--kubeconfig" -> kubeconfig = value;
                default -> throw new IllegalStateException(name);
            }
        }
        if (renewBefore.compareTo(validity) >= 0) {
            throw new UsageException("--renew-before (" + renewBefore + ") must be shorter than --validity ("
                    + validity + "), or every run would renew");
        }
        return new CertgenOptions(namespace, secret, service, mutating, validating, validity, renewBefore, renewNow,
                deleteWebhooks, kubeconfig, help);
    }

    /** The DNS names a client may use for the Service, shortest first. */
    List<String> dnsNames() {
        return List.of(service, service + "." + namespace, service + "." + namespace + ".svc",
                service + "." + namespace + ".svc.cluster.local");
    }

    private static String objectName(String option, String value) throws UsageException {
        if (!NAME.matcher(value).matches()) {
            throw new UsageException("option " + option + ": '" + value + "' is not a Kubernetes object name");
        }
        return value;
    }

    private static Duration duration(String option, String value) throws UsageException {
        Matcher m = DURATION.matcher(value);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new UsageException("option " + option + ": '" + value
                    + "' is not a duration such as 365d, 720h, 90m or 30s");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "d" -> Duration.ofDays(n);
            case "h" -> Duration.ofHours(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
        };
    }
}
