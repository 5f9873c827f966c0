#!/usr/bin/env bash
# Fails when an #include points against the flow (docs/architecture.md, "Dependencies between folders"):
#  - core/ includes only core/ (its public types, core/include/gemmtune/, included as gemmtune/...);
#  - runtime/ includes core/ and itself, never tuner/;
#  - in tuner/, a stage includes only core/, itself and the stages before it in a run:
#      search -> compile -> verify -> measure -> record -> report -> commands
#    (commands/ drives the others; main.cpp may include anything).
# Prints one line per include against the flow. Run by CTest (IncludeFlow.NoBackIncludes, label host).
set -euo pipefail
cd "$(dirname "$0")/.."
stages=(search compile verify measure record report commands)
rank() {
  local i
  for i in "${!stages[@]}"; do [ "${stages[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo -1
}
bad=0
while IFS= read -r line; do
  file=${line%%:*}
  target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$line")
  top=${target%%/*}
  [ "$top" = "$target" ] && top=""  # a bare name: the folder's own header
  case "$file" in
    core/*)
      [ -z "$top" ] || [ "$top" = core ] || [ -f "core/include/$target" ] ||
        { echo "$file includes $target: core/ includes only core/"; bad=1; } ;;
    runtime/*)
      if [ "$(rank "$top")" -ge 0 ] || [ "$top" = tuner ]; then
        echo "$file includes $target: the runtime never includes the tuner"; bad=1
      fi ;;
    tuner/*/*)
      stage=$(cut -d/ -f2 <<<"$file")
      from=$(rank "$stage")
      to=$(rank "$top")
      if [ "$from" -ge 0 ] && [ "$to" -gt "$from" ]; then
        echo "$file includes $target: $stage/ comes before $top/ in a run"; bad=1
      fi ;;
  esac
done < <(grep -rn --include='*.hpp' --include='*.cpp' --include='*.h' '^#include "' core runtime tuner)
if [ "$bad" -ne 0 ]; then exit 1; fi
echo "include flow: no back-includes in core/, runtime/ or tuner/"
