package io.remold.cue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * The worker executable, a resource of this jar built by the Maven build for the build machine's platform
 * ({@code cue-worker-linux-amd64}), copied once per JVM into a private temporary directory, removed at exit.
 */
final class WorkerBinary {
    private WorkerBinary() {
    }

    static String resourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replaceAll("\\s.*", "");
        String arch = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> System.getProperty("os.arch");
        };
        return "cue-worker-" + os + "-" + arch;
    }

    /** Extracts the worker; fails when this jar was built for another platform than the one it runs on. */
    static Path extract() {
        String name = resourceName();
        try (InputStream in = WorkerBinary.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("this build has no CUE worker for this platform (resource "
                        + name + " of remold-cue)");
            }
            Path dir = Files.createTempDirectory("remold-cue-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path binary = dir.resolve("cue-worker");
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("r-x------"));
            dir.toFile().deleteOnExit();
            binary.toFile().deleteOnExit();
            return binary;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the CUE worker", e);
        }
    }
}
