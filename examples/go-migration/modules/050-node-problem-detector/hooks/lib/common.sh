# Sourced by the hooks (a "lib" dir under hooks/ is not searched for hooks).
values_patch() {
  # values_patch PATH JSON: one "add" operation for the module's values
  jq -n --arg path "$1" --argjson value "$2" '[{op: "add", path: $path, value: $value}]' > "$VALUES_JSON_PATCH_PATH"
}
