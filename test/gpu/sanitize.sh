# Sourced by the GPU check scripts. sanitize NAME BINARY LOGDIR runs BINARY
# --small under compute-sanitizer's racecheck and synccheck; it fails unless
# each exits 0 and reports zero findings.
sanitize() {
  local name=$1 binary=$2 logs=$3 tool log rc clean=0
  for tool in racecheck synccheck; do
    log="$logs/$name.$tool.log"
    rc=0
    timeout 300 "${COMPUTE_SANITIZER:-compute-sanitizer}" --tool "$tool" --error-exitcode 3 \
      "$binary" --small > "$log" 2>&1 || rc=$?
    grep -E "SUMMARY|GPU CHECK|device:" "$log" || true
    if [ $rc -ne 0 ] || ! grep -qE "SUMMARY: 0 (errors|hazards displayed \(0 errors, 0 warnings\))" "$log"; then
      echo "$name under $tool: not clean (exit $rc)"
      clean=1
    fi
  done
  return $clean
}
