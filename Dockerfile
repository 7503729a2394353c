# Remold's image: the admission server (entrypoint) and the certificate job (remold-certgen.jar), as thin jars with
# their libraries. Build from the repository root:
#   docker build -t ghcr.io/remold/remold:0.1.0-SNAPSHOT .
# The base images are build arguments, so the same file builds where no registry is reachable, from bases made
# locally (e2e/kind/cluster.sh does that): BUILD_IMAGE needs a JDK 21+ on PATH and curl or wget (for the Maven
# wrapper); GO_IMAGE a Go 1.19+ toolchain at /usr/local/go (the CUE worker is a static binary inside the cue jar,
# so the runtime needs nothing more); RUNTIME_IMAGE needs java 25 on PATH (the AOT cache is a JDK 25 feature),
# /bin/sh and wget. Both the legacy builder and BuildKit build it. The tests do not run here (CI runs them); see docs/install.md.
ARG BUILD_IMAGE=eclipse-temurin:25-jdk
ARG RUNTIME_IMAGE=eclipse-temurin:25-jre-alpine
# The Maven build makes the CUE worker (cue/src/main/go) with the Go toolchain this image has at /usr/local/go.
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS go

FROM ${BUILD_IMAGE} AS build
COPY --from=go /usr/local/go/ /usr/local/go/
ENV PATH=/usr/local/go/bin:$PATH
WORKDIR /src
# Dependencies and plugins first, from the poms alone: this layer is reused until a pom changes. Maven needs every
# module's pom to load the reactor; the modules without sources package empty jars here.
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY api/pom.xml api/
COPY json/pom.xml json/
COPY jsonpath/pom.xml jsonpath/
COPY templating/pom.xml templating/
COPY engine/pom.xml engine/
COPY gatekeeper/pom.xml gatekeeper/
COPY scripting/pom.xml scripting/
COPY cue/pom.xml cue/
# The CUE worker's sources too: its Go modules are fetched and the binary built in this layer.
COPY cue/src/main/go/ cue/src/main/go/
COPY kinitiras/pom.xml kinitiras/
COPY rules/pom.xml rules/
COPY cli/pom.xml cli/
COPY playground/pom.xml playground/
COPY server/pom.xml server/
COPY certgen/pom.xml certgen/
COPY installer/pom.xml installer/
COPY benchmarks/pom.xml benchmarks/
COPY e2e/pom.xml e2e/
RUN ./mvnw -B -q -DskipTests -pl server,certgen -am package
COPY . .
# The server's CycloneDX SBOM (written by the build's package phase) goes in as /app/sbom.cdx.json.
# Both jars share one libs/ folder: the root pom manages every version, so a shared library is the same file.
RUN ./mvnw -B -q -DskipTests -pl server,certgen -am clean package \
 && mkdir -p /out/libs \
 && cp server/target/remold-server.jar certgen/target/remold-certgen.jar /out/ \
 && cp server/target/remold-server.cdx.json /out/sbom.cdx.json \
 && cp server/target/libs/*.jar /out/libs/ \
 && cp certgen/target/libs/*.jar /out/libs/ \
 && cp -r server/target/graal-compiler /out/graal-compiler

FROM ${RUNTIME_IMAGE}
# The uid/gid the installer's pods run as (runAsUser 65532), with no shell login and no home to write; written
# directly so that any base (Alpine's busybox, Debian) takes it.
RUN echo 'remold:x:65532:65532:remold:/nonexistent:/sbin/nologin' >>/etc/passwd \
 && echo 'remold:x:65532:' >>/etc/group
COPY --from=build --chown=0:0 /out/ /app/
# A JDK 25 AOT cache nearly halves the time to ready (BENCHMARKS.md, footprint). It only serves the JVM build, jars
# and GC/object-header flags it was trained with, hence it is trained here, in the final stage, with the flags of the
# ENTRYPOINT, which are the installer's JAVA_TOOL_OPTIONS (Bundle.SERVER_JVM_OPTIONS; InstallerTest checks all
# three agree). Like benchmarks/startup.sh, the training run serves the example rules, takes admission reviews and
# stops; the JVM writes the cache as it exits. A failed request only leaves the request path out of the cache; a
# server that does not start, or no cache, fails the build.
COPY --from=build /src/examples/rules/ /tmp/training/rules/
COPY --from=build /src/benchmarks/src/main/resources/io/remold/benchmarks/admission-review.json /tmp/training/
RUN cd /tmp/training \
 && { java -XX:+UseSerialGC -Xms64m -Xmx128m -XX:MaxNewSize=24m -Xss512k -XX:+UseCompactObjectHeaders -XX:TrimNativeHeapInterval=1000 -XX:+ExitOnOutOfMemoryError \
        -XX:AOTCacheOutput=/app/remold.aot --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar /app/remold-server.jar \
        serve --rules rules --host 127.0.0.1 --port 8443 >server.log 2>&1 & pid=$!; } \
 && for _ in $(seq 120); do grep -q "listening on" server.log && break; \
      kill -0 $pid 2>/dev/null || break; sleep 1; done \
 && grep -q "listening on" server.log || { cat server.log; exit 1; } \
 && for path in mutate validate; do for _ in $(seq 100); do \
      wget -q -O /dev/null --no-check-certificate --header "Content-Type: application/json" \
        --post-file admission-review.json "https://127.0.0.1:8443/$path" || true; done; done \
 && kill $pid && { wait $pid || true; } \
 && test -s /app/remold.aot \
 && cd / && rm -rf /tmp/training
USER 65532:65532
WORKDIR /app
EXPOSE 8443
# Script rules at compiled speed (opt-in, about 90 MiB more RSS: docs/scripts.md): JAVA_TOOL_OPTIONS="-XX:+UnlockExperimentalVMOptions
# -XX:+EnableJVMCI --upgrade-module-path=/app/graal-compiler -Dpolyglot.engine.userResourceCache=/tmp/truffle" plus the
# installer's own, and a memory limit to match; the runtime image needs the jdk.internal.vm.ci module.
# `serve` is the default command; `docker run IMAGE eval ...` runs the offline evaluator instead.
# The certificate job: java -jar /app/remold-certgen.jar [options]
ENTRYPOINT ["java", "-XX:+UseSerialGC", "-Xms64m", "-Xmx128m", "-XX:MaxNewSize=24m", "-Xss512k", "-XX:+UseCompactObjectHeaders", "-XX:TrimNativeHeapInterval=1000", \
            "-XX:+ExitOnOutOfMemoryError", "-XX:AOTCache=/app/remold.aot", \
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-jar", "/app/remold-server.jar"]
CMD ["serve"]
