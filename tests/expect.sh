# expect.sh: sourced by the e2e_*.sh tests (not a test itself). They set fail=0 first.
#   say_fail MESSAGE...               print FAIL: MESSAGE and mark the test failed
#   expect STATUS PATTERN -- command  run command; its exit status must be STATUS and a line of
#                                     its output (stdout and stderr) must match PATTERN (grep -E)
say_fail() { echo "FAIL: $*"; fail=1; }
expect() {
  local want=$1 pattern=$2; shift 3
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" -ne "$want" ]; then say_fail "'$*' exited $got, expected $want"; echo "$out"; return; fi
  if ! grep -qE -- "$pattern" <<<"$out"; then say_fail "'$*' output lacks /$pattern/"; echo "$out"; return; fi
  echo "ok: $* -> $got"
}
