# Sourced by bin/dht and bin/test: finds a JDK 25 (or newer) and exports JAVA_HOME for it.
# Order: $JAVA_HOME if it is 25+, then the JDKs installed in the usual places, newest first.

dht_java_major() { # prints the major version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}

dht_find_jdk() {
  local candidates=() best="" best_major=0 c m
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for c in /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/* "${HOME:-/nonexistent}"/.sdkman/candidates/java/* \
           "${HOME:-/nonexistent}"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$c" ] && candidates+=("$c")
  done
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    m=$(dht_java_major "$c/bin/java")
    [ -n "$m" ] || continue
    # JAVA_HOME wins when it is new enough; otherwise take the newest found.
    if [ "$m" -ge 25 ] && [ "$c" = "${JAVA_HOME:-}" ]; then best="$c"; break; fi
    if [ "$m" -ge 25 ] && [ "$m" -gt "$best_major" ]; then best="$c"; best_major="$m"; fi
  done
  if [ -z "$best" ]; then
    echo "dht: no JDK 25 or newer found (looked at \$JAVA_HOME and /usr/lib/jvm, /opt/java, ~/.sdkman, ~/.jdks)." >&2
    echo "dht: install one (for example Temurin 25) or point JAVA_HOME at it." >&2
    return 1
  fi
  export JAVA_HOME="$best"
}

# Maven through the project's wrapper (./mvnw): it fetches the Maven version the project pins on
# first use, so a machine needs a JDK and nothing else. Runs in $root.
dht_mvn() {
  (cd "$root" && ./mvnw "$@")
}
