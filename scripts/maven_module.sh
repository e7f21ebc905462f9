# Sourced by the build.sh of the Maven modules the tests run (interop/java, tests/debezium):
# maven_module_build DIR JAR WHAT builds the module in DIR with Maven when JAR or DIR/target/lib
# is missing, or pom.xml / a source file is newer than JAR; one caller builds while the others
# wait (a lock in DIR). Maven's own output goes to stderr. MVN_ARGS are extra Maven arguments
# (e.g. MVN_ARGS=-o for an explicitly offline build; every version is pinned).
maven_module_build() {
    local here="$1" jar="$2" what="$3"
    exec 9>"$here/.build.lock"
    flock 9
    if [[ -f "$jar" && -d "$here/target/lib" &&
          -z "$(find "$here/pom.xml" "$here/src" -newer "$jar" -print -quit)" ]]; then
        return 0
    fi
    command -v mvn >/dev/null || { echo "build.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
    rm -rf "$here/target/lib"
    # shellcheck disable=SC2086
    (cd "$here" && mvn -q -B -Dstyle.color=never ${MVN_ARGS:-} package -DskipTests) 1>&2 || {
        echo "build.sh: maven failed to build $what" >&2
        exit 1
    }
    [[ -f "$jar" ]] || { echo "build.sh: build produced no $jar" >&2; exit 1; }
    # the jar plugin leaves an up-to-date jar untouched; mark it fresh so we do not rebuild again
    touch "$jar"
}
