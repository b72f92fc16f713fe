#!/usr/bin/env bash
# Manual check (not run by pytest/CI): a client nobody here wrote, the MCP Inspector CLI, drives
# cctui's MCP server over Streamable HTTP and stdio, fully offline (tests/fakes plays the model).
#
# Install (once, outside the repo; only the npm registry is needed):
#   mkdir -p /tmp/mcpcheck/{node22,insp2,insp015}
#   cd /tmp/mcpcheck/node22 && npm init -y && npm install node@22           # node v22.23.x
#   cd /tmp/mcpcheck/insp2  && npm init -y && \
#     PATH=/tmp/mcpcheck/node22/node_modules/.bin:$PATH npm install @modelcontextprotocol/inspector@2.12.0
#   cd /tmp/mcpcheck/insp015 && npm init -y && npm install @modelcontextprotocol/inspector@0.15.0  # optional, node 20
# (npm 11 warns that install scripts were not run; neither package needs them.)
#
# Run from anywhere (it cd's to the repo root):
#   PYTHON=/work/venv/bin/python NODE22=/tmp/mcpcheck/node22/node_modules/.bin \
#   INSPECTOR=/tmp/mcpcheck/insp2/node_modules/.bin/mcp-inspector \
#   INSPECTOR_OLD=/tmp/mcpcheck/insp015/node_modules/.bin/mcp-inspector \
#   tests/mcp/inspector_check.sh
# NODE22 is put first on PATH for INSPECTOR (2.x needs node >= 22.19); INSPECTOR_OLD (0.15.0,
# stdio only: it has no --header) runs with the node already on PATH; leave it unset to skip it.
# KEEP=1 keeps the temp dir (fake API log: $tmp/fake_api.jsonl). Everything binds 127.0.0.1.
#
# What it does: starts the fake Anthropic API and `cctui serve --http --port 0` in a temp HOME with
# the offline env (tests/fakes/plugin.py offline_env), reads url+token from
# $HOME/.local/state/cctui/server.json, then with Inspector 2.12 over HTTP: tools/list,
# claude_health, claude_create_session "[[write path=hello.txt content=hi]]", claude_get_status
# until the Write permission is pending, claude_respond allow, claude_wait until turn_ended, checks
# hello.txt, claude_get_status on an unknown session, and a call without the token (401). Over stdio
# (each Inspector call spawns its own `cctui serve --stdio`): tools/list, claude_health,
# claude_query "[[say ...]]", the unknown-session error. Then the same stdio error with 0.15.
#
# Error results: cctui answers a failed call with isError=true and the JSON
# {code,message,retryable,suggestion} as text, without structuredContent. (Both Inspector CLIs
# check structuredContent against the tool's success outputSchema even when isError is true,
# and rejected the error results of an earlier cctui that sent it there.)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
PY=${PYTHON:-python}
: "${INSPECTOR:?set INSPECTOR to the 2.x mcp-inspector binary (see the top of this script)}"
NODE22=${NODE22:-}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  if [ -n "${KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
passed=0 failed=0
ok() { echo "  ok: $*"; passed=$((passed + 1)); }
bad() { echo "  FAIL: $*"; failed=$((failed + 1)); }
# insp ARGS...: Inspector 2.x with node 22 first on PATH. Output in $tmp/out, $tmp/err, rc in $rc.
insp() {
  PATH="${NODE22:+$NODE22:}$PATH" "$INSPECTOR" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
}
insp_old() { "$INSPECTOR_OLD" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# jget EXPR: evaluate a Python expression on d = the JSON in $tmp/out.
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/out" "$1" 2>/dev/null; }

# -- fake Anthropic API and the offline env ------------------------------------------------------
home="$tmp/home" proj="$tmp/proj"
mkdir -p "$home" "$proj"
"$PY" -m tests.fakes.anthropic_api --port 0 --log "$tmp/fake_api.jsonl" >"$tmp/fake.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q LISTENING "$tmp/fake.out" 2>/dev/null && break; sleep 0.2; done
fake_port=$(awk '/LISTENING/{print $2}' "$tmp/fake.out")
[ -n "$fake_port" ] || { echo "fake API did not start:"; cat "$tmp/fake.out"; exit 2; }
"$PY" - "$home" "$proj" "http://127.0.0.1:$fake_port" >"$tmp/env.sh" <<'EOF'
import shlex, sys
from pathlib import Path
from tests.fakes.plugin import offline_env, seed_claude_home
home, proj, url = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
seed_claude_home(home, proj)
for k, v in offline_env({}, url, home).items():
    print(f"export {k}={shlex.quote(v)}")
EOF
# The env keeps PATH etc. from this shell; offline_env({}) adds only the offline variables.
# shellcheck disable=SC1091
source "$tmp/env.sh"
# Inspector spawns stdio servers with a minimal env: pass the offline variables explicitly.
stdio_env=()
while IFS= read -r line; do
  kv=${line#export }; k=${kv%%=*}; stdio_env+=(-e "$k=${!k}")
done <"$tmp/env.sh"

# -- cctui serve --http --------------------------------------------------------------------------
(cd "$proj" && exec "$PY" -m cctui serve --http --port 0 >"$tmp/serve.log" 2>&1) &
pids+=($!)
state="$HOME/.local/state/cctui/server.json"
for _ in $(seq 100); do [ -s "$state" ] && break; sleep 0.2; done
[ -s "$state" ] || { echo "cctui serve did not publish $state:"; cat "$tmp/serve.log"; exit 2; }
url=$("$PY" -c 'import json,sys;print(json.load(open(sys.argv[1]))["url"])' "$state")
token=$("$PY" -c 'import json,sys;print(json.load(open(sys.argv[1]))["token"])' "$state")
H=(--cli "$url" --transport http --header "Authorization: Bearer $token")
echo "== Inspector $(PATH="${NODE22:+$NODE22:}$PATH" "$INSPECTOR" --cli --version 2>/dev/null) over HTTP at $url"

insp "${H[@]}" --method tools/list
names=$(jget '" ".join(t["name"] for t in d["tools"])')
[ "$rc" = 0 ] && [[ " $names " == *" claude_create_session "* ]] && ok "tools/list: $names" \
  || bad "tools/list rc=$rc $(cat "$tmp/err")"

insp "${H[@]}" --method tools/call --tool-name claude_health
[ "$rc" = 0 ] && [ "$(jget 'd["structuredContent"]["ok"]')" = True ] \
  && ok "claude_health: $(jget 'd["structuredContent"]["version"]')" || bad "claude_health rc=$rc $(cat "$tmp/err")"

insp "${H[@]}" --method tools/call --tool-name claude_create_session \
  --tool-arg 'prompt=[[write path=hello.txt content=hi]]' --tool-arg "workingDirectory=$proj"
sid=$(jget 'd["structuredContent"]["sessionId"]')
[ "$rc" = 0 ] && [ -n "$sid" ] && ok "claude_create_session: $sid" || bad "create rc=$rc $(cat "$tmp/err")"

iid=
for _ in $(seq 30); do
  insp "${H[@]}" --method tools/call --tool-name claude_get_status --tool-arg "sessionId=$sid"
  iid=$(jget '(d["structuredContent"]["pendingInputs"] or [{}])[0].get("inputId", "")')
  [ -n "$iid" ] && break; sleep 1
done
[ -n "$iid" ] && ok "claude_get_status: status=$(jget 'd["structuredContent"]["session"]["status"]')," \
  "pending $(jget '[(p["type"], p["toolName"], p["toolInput"]["file_path"]) for p in d["structuredContent"]["pendingInputs"]]')" \
  || bad "no pending input after 30 s: $(cat "$tmp/out" "$tmp/err")"

insp "${H[@]}" --method tools/call --tool-name claude_respond \
  --tool-arg "sessionId=$sid" "inputId=$iid" decision=allow
[ "$rc" = 0 ] && ok "claude_respond allow: decidedBy=$(jget 'd["structuredContent"]["decidedBy"]')" \
  || bad "respond rc=$rc $(cat "$tmp/err")"

reason=
for _ in 1 2 3; do  # timeoutMs is at most 55000
  insp "${H[@]}" --method tools/call --tool-name claude_wait --tool-arg "sessionId=$sid" timeoutMs=30000
  reason=$(jget 'd["structuredContent"]["reason"]')
  [ "$reason" = timeout ] || break
done
[ "$rc" = 0 ] && [ "$reason" = turn_ended ] && ok "claude_wait: turn_ended, reply=$(jget 'd["structuredContent"]["reply"]')" \
  || bad "claude_wait rc=$rc reason=$reason $(cat "$tmp/err")"
[ "$(cat "$proj/hello.txt" 2>/dev/null)" = hi ] && ok "$proj/hello.txt contains 'hi'" || bad "hello.txt missing"

# error_check LABEL: the unknown-session call just ran; its error JSON must reach the user.
error_check() {
  # Inspector 2.x prints the result and exits 5 for an isError result; 0.15 exits 0.
  if { [ "$rc" = 0 ] || [ "$rc" = 5 ]; } && [ "$(jget 'd["isError"]')" = True ] \
      && [ "$(jget 'json.loads(d["content"][0]["text"])["code"]')" = session_not_found ]; then
    ok "$1: structured error shown: $(jget 'd["content"][0]["text"]')"
  else bad "$1: rc=$rc $(cat "$tmp/out" "$tmp/err" | head -c 400)"; fi
}
insp "${H[@]}" --method tools/call --tool-name claude_get_status --tool-arg sessionId=nope
error_check "HTTP claude_get_status sessionId=nope"

# Without the token: the server says 401; Inspector then wants interactive OAuth, so
# --stored-auth-only makes it fail at once with the server's message (exit 3).
insp --cli "$url" --transport http --stored-auth-only --method tools/list
if [ "$rc" != 0 ] && grep -q unauthorized "$tmp/err"; then ok "no token: exit $rc, $(cat "$tmp/err")"
else bad "no-token call: rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
code=$("$PY" - "$url" <<'EOF'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1], data=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
try: print(urllib.request.urlopen(req, timeout=5).status)
except urllib.error.HTTPError as e: print(e.code, e.headers.get("WWW-Authenticate"))
EOF
)
[[ "$code" == 401* ]] && ok "raw POST without token: $code" || bad "raw POST without token: $code"

# -- stdio ---------------------------------------------------------------------------------------
S=(--cli "${stdio_env[@]}" --cwd "$proj" "$PY" -m cctui serve --stdio)
echo "== Inspector 2.x over stdio"
insp "${S[@]}" --method tools/list
[ "$rc" = 0 ] && ok "tools/list: $(jget 'len(d["tools"])') tools" || bad "stdio tools/list rc=$rc $(cat "$tmp/err")"
insp "${S[@]}" --method tools/call --tool-name claude_health
[ "$rc" = 0 ] && [ "$(jget 'd["structuredContent"]["ok"]')" = True ] && ok "claude_health" \
  || bad "stdio claude_health rc=$rc $(cat "$tmp/err")"
insp "${S[@]}" --method tools/call --tool-name claude_query \
  --tool-arg 'prompt=[[say text=hello over stdio]]' "workingDirectory=$proj"
[ "$rc" = 0 ] && [ "$(jget 'd["structuredContent"]["text"]')" = "hello over stdio" ] \
  && ok "claude_query: result=$(jget 'd["structuredContent"]["text"]')" \
  || bad "stdio claude_query rc=$rc $(cat "$tmp/out" "$tmp/err")"
insp "${S[@]}" --method tools/call --tool-name claude_get_status --tool-arg sessionId=nope
error_check "stdio claude_get_status sessionId=nope"

if [ -n "${INSPECTOR_OLD:-}" ]; then
  echo "== Inspector 0.15 (node $(node --version)) over stdio"
  O=(--cli "${stdio_env[@]}" "$PY" -m cctui serve --stdio)
  (cd "$proj" && insp_old "${O[@]}" --method tools/list; exit $rc); rc=$?
  [ "$rc" = 0 ] && ok "tools/list: $(jget 'len(d["tools"])') tools" || bad "0.15 tools/list rc=$rc $(cat "$tmp/err")"
  (cd "$proj" && insp_old "${O[@]}" --method tools/call --tool-name claude_health; exit $rc); rc=$?
  [ "$rc" = 0 ] && [ "$(jget 'd["structuredContent"]["ok"]')" = True ] && ok "claude_health" \
    || bad "0.15 claude_health rc=$rc $(cat "$tmp/err")"
  (cd "$proj" && insp_old "${O[@]}" --method tools/call --tool-name claude_get_status \
    --tool-arg sessionId=nope; exit $rc); rc=$?
  error_check "0.15 stdio claude_get_status sessionId=nope"
fi

echo "inspector_check: $passed passed, $failed failed"
[ "$failed" = 0 ]
