#!/usr/bin/env bash
# Regenerate the checked-in PTX from the CUDA sources with Debian's clang-14 (CLIENTS.md):
#   apt-get install clang-14 && kernels/build.sh
set -euo pipefail
cd "$(dirname "$0")"
for cu in *.cu; do
  clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib -O2 -S \
    -Xclang -target-feature -Xclang +ptx64 -include shim.h -o "${cu%.cu}.ptx" "$cu"
done
