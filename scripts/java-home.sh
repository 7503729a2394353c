# Sourced by the top-level scripts: points JAVA_HOME at a JDK 21 or newer.
# The machine's default java may be 17; a Temurin JDK lives under /usr/lib/jvm.
java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n1; }
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/javac" ] || [ "$(java_major "$JAVA_HOME")" -lt 21 ]; then
  JAVA_HOME=""
  for candidate in /usr/lib/jvm/temurin-25* /usr/lib/jvm/temurin-2* /usr/lib/jvm/java-2*-openjdk* /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/javac" ] && [ "$(java_major "$candidate")" -ge 21 ]; then JAVA_HOME="$candidate"; break; fi
  done
  if [ -z "$JAVA_HOME" ]; then
    echo "error: Remold needs a JDK 21 or newer (set JAVA_HOME); none found under /usr/lib/jvm" >&2
    exit 2
  fi
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
