#!/usr/bin/env bash
# Fetches Apache Kafka's broker jars (pom.xml) into target/lib if needed and prints that directory.
# Maven's own output goes to stderr; stdout carries only the path. MVN_ARGS as interop/java/build.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="$here/target/lib"
stamp="$here/target/.fetched"

exec 9>"$here/.build.lock"
flock 9

if [[ ! -f "$stamp" || "$here/pom.xml" -nt "$stamp" ]]; then
    command -v mvn >/dev/null || { echo "build.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
    rm -rf "$lib"
    # shellcheck disable=SC2086
    (cd "$here" && mvn -q -B -Dstyle.color=never ${MVN_ARGS:-} package) 1>&2 || {
        echo "build.sh: maven failed to fetch the Kafka jars" >&2
        exit 1
    }
    ls "$lib"/kafka_2.13-*.jar >/dev/null 2>&1 || { echo "build.sh: no kafka jar in $lib" >&2; exit 1; }
    touch "$stamp"
fi
echo "$lib"
