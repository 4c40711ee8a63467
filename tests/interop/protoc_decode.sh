#!/usr/bin/env bash
# Chakra traces written by `clearfog export chakra` decode with protoc and the schema alone:
# every message of rank 0's file, split at its varint length, parses as GlobalMetadata (the first)
# or Node (the others); the file holds COMP, COMM_COLL, COMM_SEND and COMM_RECV nodes (the scenario
# is a pipeline); and comm_src, comm_dst and comm_tag decode as int32_val, the type Chakra's reader
# reads them as (mlcommons/chakra src/feeder/et_feeder_node.cpp). Skipped (77) without protoc.
# Usage: protoc_decode.sh CLEARFOG SCENARIO SCHEMA_DIR WORK_DIR [EXPORT OPTIONS...]
set -euo pipefail
clearfog=$1 scenario=$2 schema_dir=$3 work=$4
shift 4
if ! command -v protoc >/dev/null 2>&1; then
  echo "skipped: protoc is not installed (Debian protobuf-compiler)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
"$clearfog" export chakra "$scenario" "$@" --out "$work/et" >/dev/null
file="$work/et/et.0.et"
size=$(stat -c %s "$file")
bytes=($(od -An -v -tu1 "$file"))
offset=0 index=0 types="" peers=""
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
  if [ "$index" -gt 0 ]; then
    types+=" $(sed -n 's/^type: //p' <<<"$text")"
    # The value line after each comm_src/comm_dst/comm_tag name: "comm_src int32_val".
    peers+=$(awk '/name: "comm_(src|dst|tag)"/ { getline v; sub(/:.*/, "", v); gsub(/[ "]/, "", v);
                                                 gsub(/[ "]|name:/, ""); print " " $0 "=" v }' <<<"$text")
  fi
  offset=$((offset + length)) index=$((index + 1))
done
for t in COMP_NODE COMM_COLL_NODE COMM_SEND_NODE COMM_RECV_NODE; do
  grep -qw "$t" <<<"$types" || { echo "no $t in $file"; exit 1; }
done
if wrong=$(tr ' ' '\n' <<<"$peers" | grep -v '=int32_val$' | grep .); then
  echo "comm_src, comm_dst or comm_tag not int32_val in $file (Chakra's reader reads them as int32):"
  sort <<<"$wrong" | uniq -c
  exit 1
fi
for a in comm_src comm_dst comm_tag; do
  grep -q "$a=int32_val" <<<"$peers" || { echo "no $a as int32_val in $file"; exit 1; }
done
echo "decoded $index messages of $file; $(tr ' ' '\n' <<<"$peers" | grep -c .) comm_src/dst/tag, all int32_val"
