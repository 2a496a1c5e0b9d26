# Sourced by the bench scripts once `here` (the repository) is set: `bin` is the release
# build of roundup ($ROUNDUP if given), and a script stops with what to do when it is
# missing; `need_gnu_time` does the same for GNU time, which measures peak memory.
bin=${ROUNDUP:-${CARGO_TARGET_DIR:-$here/target}/release/roundup}
[ -x "$bin" ] || { echo "build first: cargo build --release ($bin not found)" >&2; exit 1; }
need_gnu_time() {
    [ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
}
