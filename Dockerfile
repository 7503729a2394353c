# syntax=docker/dockerfile:1
# Remold's image: the admission server (entrypoint) and the certificate job (remold-certgen.jar), as thin jars with
# their libraries. Build from the repository root:
#   docker build -t ghcr.io/remold/remold:0.1.0-SNAPSHOT .
# The tests do not run here (CI runs them, with the KubeMod corpus beside the checkout); see docs/install.md.

FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY . .
# The Maven cache survives between builds (BuildKit); `clean` drops any target/ copied from a working tree.
# Both jars share one libs/ folder: the root pom manages every version, so a shared library is the same file.
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -DskipTests -pl server,certgen -am clean package \
 && mkdir -p /out/libs \
 && cp server/target/remold-server.jar certgen/target/remold-certgen.jar /out/ \
 && cp server/target/libs/*.jar /out/libs/ \
 && cp certgen/target/libs/*.jar /out/libs/

FROM eclipse-temurin:25-jre-alpine
# The same uid/gid the installer's pods run as (runAsUser 65532); no shell login, no home to write.
RUN addgroup -S -g 65532 remold && adduser -S -D -H -u 65532 -G remold -s /sbin/nologin remold
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
        -XX:AOTCacheOutput=/app/remold.aot -jar /app/remold-server.jar \
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
# `serve` is the default command; `docker run IMAGE eval ...` runs the offline evaluator instead.
# The certificate job: java -jar /app/remold-certgen.jar [options]
ENTRYPOINT ["java", "-XX:+UseSerialGC", "-Xms64m", "-Xmx128m", "-XX:MaxNewSize=24m", "-Xss512k", "-XX:+UseCompactObjectHeaders", "-XX:TrimNativeHeapInterval=1000", \
            "-XX:+ExitOnOutOfMemoryError", "-XX:AOTCache=/app/remold.aot", "-jar", "/app/remold-server.jar"]
CMD ["serve"]
