# Internal to test/docs/executed-docs.test.ts: sourced before the blocks of one document run.
# The test sets __GW_PORT (the gateway), __HS_PORT (a stand-in for HubSpot's API), __CALL_LOG,
# __ROOT (the project, for `npm run`) and __FAKE_CRM_PORT (for `npm run fake-crm`).

__BLOCK=0
__EXPECT=''
__EXPECT_CODE=''

# __block <number> <expected status or ''> <expected GraphQL code or ''> <file:line>
__block() {
  __BLOCK=$1
  __EXPECT=$2
  __EXPECT_CODE=$3
  printf '\n=== block %s (%s)\n' "$1" "$4"
}

# curl as the documents write it, checked: the gateway's documented address (localhost:4000) and
# HubSpot's are sent to the test's servers; the status must be a 2xx or the block's `expect`; a
# GraphQL answer must carry no error, or the block's `code`. Each call is logged for the test.
curl() {
  local args=() arg url=''
  for arg in "$@"; do
    case $arg in
      -o | --output | -w | --write-out)
        echo "docs: block $__BLOCK: curl $arg is used by the test itself; examples print to stdout" >&2
        return 2
        ;;
    esac
    arg=${arg//localhost:4000/127.0.0.1:$__GW_PORT}
    arg=${arg//https:\/\/api.hubapi.com/http:\/\/127.0.0.1:$__HS_PORT}
    if [[ $arg =~ ^(http://)?127\.0\.0\.1:[0-9]+/ ]]; then url=$arg; fi
    args+=("$arg")
  done
  if [ -z "$url" ]; then
    echo "docs: block $__BLOCK: curl $* calls an address the test does not serve" >&2
    return 2
  fi
  local body code rc=0 verdict=ok why=''
  body=$(mktemp)
  code=$(command curl -sS --max-time 30 -o "$body" -w '%{http_code}' "${args[@]}") || rc=$?
  cat "$body"
  if [ "$rc" -ne 0 ]; then
    verdict=fail why="curl exited with $rc"
  elif [ -n "$__EXPECT" ]; then
    [ "$code" = "$__EXPECT" ] || verdict=fail why="expected HTTP $__EXPECT"
  else
    [[ $code == 2?? ]] || verdict=fail why='expected a 2xx'
  fi
  if [ "$verdict" = ok ] && [[ $url =~ :$__GW_PORT/graphql ]]; then
    local errors
    errors=$(jq -r 'if type == "object" and has("errors") then (.errors[0].extensions.code // "(no code)") else "" end' "$body" 2>/dev/null) ||
      errors='(not JSON)'
    [ "$errors" = "$__EXPECT_CODE" ] || verdict=fail why="GraphQL error code: expected '${__EXPECT_CODE:-none}', got '${errors:-none}'"
  fi
  rm -f "$body"
  printf '%s\t%s\t%s\t%s\t%s\n' "$__BLOCK" "$code" "$verdict" "$url" "$why" >>"$__CALL_LOG"
  if [ "$verdict" != ok ]; then
    printf '\ndocs: block %s: %s, got HTTP %s from %s\n' "$__BLOCK" "$why" "$code" "$url" >&2
    return 1
  fi
}

# __graphql <token variable> <name:VAR,...> < operation: POSTs a ```graphql block to the gateway.
__graphql() {
  local token_var=$1 spec=$2 query vars='{}' pair pairs=()
  query=$(cat)
  if [ -n "$spec" ]; then IFS=',' read -ra pairs <<<"$spec"; fi
  for pair in "${pairs[@]}"; do
    local var=${pair#*:}
    vars=$(jq -c --arg name "${pair%%:*}" --arg value "${!var}" '. + {($name): $value}' <<<"$vars")
  done
  jq -n --arg query "$query" --argjson variables "$vars" '{query: $query, variables: $variables}' |
    curl -s localhost:4000/graphql -H "Authorization: Bearer ${!token_var}" -H 'Content-Type: application/json' --data-binary @-
  echo
}

# `npm run <script> [-- args]` as the documents write it, run from the sources: the script's
# `node dist/<path>.js` becomes `node -r test/helpers/ts-register.js <root>/<path>.ts` (what
# `npm run` runs once built, without building: the test must not build dist/), in the document's
# working directory, so relative DATA_DIRs land there. The fake CRM's documented address
# (localhost:4010) is sent to a free port the test chose (__FAKE_CRM_PORT). In the background
# (`&`) the function runs in a subshell, which becomes node, so `kill %1` stops it. Each run is
# logged for the test, with its exit status.
npm() {
  if [ "${1:-}" != run ] || [ -z "${2:-}" ]; then
    echo "docs: block $__BLOCK: npm $*: only 'npm run <script>' runs here" >&2
    return 2
  fi
  local script=$2 target arg args=()
  shift 2
  if [ "${1:-}" = -- ]; then shift; fi
  target=$(jq -r --arg s "$script" '.scripts[$s] // "" | (capture("exec node (?:--[a-z-]+ )*dist/(?<f>[^ ]+)[.]js") | .f) // ""' "$__ROOT/package.json")
  if [ -z "$target" ]; then
    echo "docs: block $__BLOCK: npm run $script: not a script that runs a dist/ entry" >&2
    return 2
  fi
  for arg in "$@"; do args+=("${arg//4010/$__FAKE_CRM_PORT}"); done
  if [ -n "${HUBSPOT_BASE_URL:-}" ]; then
    export HUBSPOT_BASE_URL=${HUBSPOT_BASE_URL//localhost:4010/127.0.0.1:$__FAKE_CRM_PORT}
  fi
  local command=(node -r "$__ROOT/test/helpers/ts-register.js" "$__ROOT/$target.ts" "${args[@]}")
  if [ "$BASHPID" != "$$" ]; then exec "${command[@]}"; fi
  local rc=0
  "${command[@]}" || rc=$?
  local verdict=ok why=''
  if [ "$rc" -ne 0 ]; then verdict=fail why="exited with $rc"; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$__BLOCK" "$rc" "$verdict" "npm run $script" "$why" >>"$__CALL_LOG"
  return "$rc"
}
