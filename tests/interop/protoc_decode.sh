#!/usr/bin/env bash
# Chakra traces written by `clearfog export chakra` decode with protoc and the schema alone:
# every message of rank 0's file, split at its varint length, parses as GlobalMetadata (the first)
# or Node (the others), and the file holds COMP and COMM_COLL nodes. Skipped (77) without protoc.
# Usage: protoc_decode.sh CLEARFOG SCENARIO SCHEMA_DIR WORK_DIR
set -euo pipefail
clearfog=$1 scenario=$2 schema_dir=$3 work=$4
if ! command -v protoc >/dev/null 2>&1; then
  echo "skipped: protoc is not installed (Debian protobuf-compiler)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
"$clearfog" export chakra "$scenario" --out "$work/et" >/dev/null
file="$work/et/et.0.et"
size=$(stat -c %s "$file")
bytes=($(od -An -v -tu1 "$file"))
offset=0 index=0 types=""
while [ "$offset" -lt "$size" ]; do
  length=0 shift=0
  while :; do
    b=${bytes[$offset]}; offset=$((offset + 1))
    length=$((length | ((b & 127) << shift))); shift=$((shift + 7))
    [ "$b" -lt 128 ] && break
  done
  type=Node; [ "$index" -eq 0 ] && type=GlobalMetadata
  text=$(dd if="$file" iflag=skip_bytes,count_bytes skip="$offset" count="$length" status=none |
         protoc --decode="ChakraProtoMsg.$type" -I"$schema_dir" "$schema_dir/et_def.proto")
  [ "$index" -gt 0 ] && types+=" $(sed -n 's/^type: //p' <<<"$text")"
  offset=$((offset + length)) index=$((index + 1))
done
grep -q COMP_NODE <<<"$types" && grep -q COMM_COLL_NODE <<<"$types" || { echo "no COMP or COMM_COLL node in $file"; exit 1; }
echo "decoded $index messages of $file"
